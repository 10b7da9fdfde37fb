#!/usr/bin/env python3
"""Derives the residual models' priors (detail::magnitude_prior, sign_prior
and mantissa_prior in include/bitrep/wire/coded_stream.hpp) from the
decisions counted on the training scenes.

    derive_priors.py COUNTS [--slot-bytes 1412]

COUNTS is what cubes_bandwidth built with -DBITREP_DECISION_LOG writes to
$BITREP_TRAIN_OUT (bench/cubes/decision_log.patch; docs/benchmarks.md,
"Priors for the residual models"): one line per model, "key zeros ones",
the key being the model's byte offset from the packet's first slot, with
bit 31 set inside an entity's body. The counts of a model are pooled over
every slot (the offset within a slot says which model it is); a model
decided fewer than 64 times keeps the even prior (printed as 0).
"""
import argparse
import collections

parser = argparse.ArgumentParser()
parser.add_argument("counts")
parser.add_argument("--slot-bytes", type=int, default=1412, help="sizeof(bitrep::coded_slot)")
args = parser.parse_args()

# Offsets inside coded_slot (4-byte bit_model): changed[4], magnitude[3][4][24], sign[3], mantissa[24].
MAGNITUDE, SIGN, MANTISSA = 16, 16 + 4 * 288, 16 + 4 * 291
FEWEST = 64

pooled = collections.defaultdict(lambda: [0, 0])
with open(args.counts) as counts:
    for line in counts:
        key, zeros, ones = map(int, line.split())
        if key >> 31:  # inside a body: the residual models live only there
            offset = (key & 0x7FFFFFFF) % args.slot_bytes
            pooled[offset][0] += zeros
            pooled[offset][1] += ones


def prior(offset):
    zeros, ones = pooled.get(offset, (0, 0))
    if zeros + ones < FEWEST:
        return 0
    p = (zeros + 0.4) / (zeros + ones + 0.8) * 32768.0
    return int(min(max(p, 32.0), 32768.0 - 32.0))


def row(values):
    return "{" + ", ".join(str(v) for v in values) + "}"


magnitude = [[row(prior(MAGNITUDE + 4 * ((t * 4 + q) * 24 + k)) for k in range(24)) for q in range(4)]
             for t in range(3)]
print("inline constexpr std::uint16_t magnitude_prior[3][4][coded_classes] = {")
print(",\n".join("    {" + ",\n     ".join(t) + "}" for t in magnitude) + "};")
print("inline constexpr std::uint16_t sign_prior[3] = " + row(prior(SIGN + 4 * i) for i in range(3)) + ";")
print("inline constexpr std::uint16_t mantissa_prior[coded_classes] = " +
      row(prior(MANTISSA + 4 * i) for i in range(24)) + ";")
