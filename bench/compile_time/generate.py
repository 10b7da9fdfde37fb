#!/usr/bin/env python3
"""Writes the two translation units of the compile-time benchmark.

    generate.py N OUTDIR

OUTDIR/bitrep_N.cpp: N plain aggregates S0..S{N-1} annotated with bitrep's
types, serialized by reflection (bitrep::to_bytes / bitrep::from_bytes) with
every type's codec compiled inline (BITREP_INLINE_CODECS defined to 1 before
the include).

OUTDIR/extern_N.cpp: the same, each struct followed by BITREP_EXTERN(Si), so
that the file uses the codecs without compiling them (compile only: the
definitions would come from one file with BITREP_INSTANTIATE).

OUTDIR/tables_N.cpp: bitrep_N.cpp without that definition, so through the
table engine, bitrep's default: each struct is a constant descriptor table,
run by the interpreter compiled once in the library (src/engine/*.cpp: link
them to run the program).

OUTDIR/hand_N.cpp: the same N structs with plain members and a hand-written
`template <class Stream> bool serialize(Stream&)` member each, over the
streams in handwritten.hpp (serialize 1.0 / "Serialization Strategies" style).

Both encode the same fields with the same bit counts. Ranges vary with the
struct's index, so each struct's field types are distinct instantiations (as
in a game, where no two structs share all their annotations). Each struct has
an out-of-line `roundtrip_Si` and a check, and main calls every check, so no
code is dead; main returns 0 only if every struct round-trips.
"""

import os
import sys


def params(i):
    """The per-struct ranges, shared by both sides."""
    return {
        "i": i,
        "health_max": 100 + i,
        "ammo_max": 999 + i % 64000,
        "x_lim": 100 + i % 100,
        "y_lim": 50 + i % 100,
        "name_max": 16 + i % 8,
        "inv_max": 8,
        "inv_elem_max": 200 + i % 56,
        "slot_max": 7 + i % 9,
        "level_min": -(50 + i % 50),
        "level_max": 50 + i,
    }


BITREP_STRUCT = """\
struct S{i} {{
    bitrep::ranged<int, 0, {health_max}> health;
    bitrep::ranged<std::uint16_t, 0, {ammo_max}> ammo;
    bitrep::quantized<-{x_lim}.f, {x_lim}.f, 0.01f> x;
    bitrep::quantized<-{y_lim}.f, {y_lim}.f, 0.01f> y;
    bool alive;
    bitrep::bounded_string<{name_max}> name;
    bitrep::bounded_vector<bitrep::ranged<std::uint8_t, 0, {inv_elem_max}>, {inv_max}> inventory;
    std::uint32_t flags;
    std::optional<bitrep::ranged<int, 0, {slot_max}>> slot;
    bitrep::quat<9> orientation;
    bitrep::ranged<int, {level_min}, {level_max}> level;
}};

std::size_t roundtrip_S{i}(const S{i}& in, S{i}& out)
{{
    std::vector<std::uint8_t> b;
    if (!bitrep::to_bytes(in, b).ok())
        return 0;
    if (!bitrep::from_bytes(b, out).ok())
        return 0;
    return b.size();
}}

"""

HAND_STRUCT = """\
struct S{i} {{
    int health = 0;
    std::uint16_t ammo = 0;
    float x = 0.0f;
    float y = 0.0f;
    bool alive = false;
    std::string name;
    std::vector<std::uint8_t> inventory;
    std::uint32_t flags = 0;
    std::optional<int> slot;
    hand::Quat orientation;
    int level = 0;

    template <class Stream>
    bool serialize(Stream& s)
    {{
        if (!serialize_int(s, health, 0, {health_max}))
            return false;
        if (!serialize_int(s, ammo, 0, {ammo_max}))
            return false;
        if (!serialize_compressed_float(s, x, -{x_lim}.f, {x_lim}.f, 0.01f))
            return false;
        if (!serialize_compressed_float(s, y, -{y_lim}.f, {y_lim}.f, 0.01f))
            return false;
        if (!serialize_bool(s, alive))
            return false;
        if (!serialize_string(s, name, {name_max}))
            return false;
        if (!serialize_byte_vector(s, inventory, {inv_max}, {inv_elem_max}))
            return false;
        if (!serialize_bits(s, flags, 32))
            return false;
        if (!serialize_optional_int(s, slot, 0, {slot_max}))
            return false;
        if (!hand::serialize_quat<9>(s, orientation))
            return false;
        if (!serialize_int(s, level, {level_min}, {level_max}))
            return false;
        return true;
    }}
}};

std::size_t roundtrip_S{i}(const S{i}& in, S{i}& out)
{{
    std::vector<std::uint8_t> b;
    if (!hand::write(in, b))
        return 0;
    if (!hand::read(b, out))
        return 0;
    return b.size();
}}

"""

# The same on both sides: fill, round-trip, compare. `get` reads a member's
# plain value (bitrep annotations convert to theirs).
CHECK = """\
std::size_t check_S{i}()
{{
    S{i} in{{}};
    in.health = {health_val};
    in.ammo = {ammo_val};
    in.x = 12.34f;
    in.y = -5.5f;
    in.alive = true;
    in.name = "unit_{i}";
    in.inventory = {{1, 2, {inv_last}}};
    in.flags = 0xDEADBEEFu - {i}u;
    in.slot = 3;
    in.orientation = {{0.0f, 0.0f, 0.6f, 0.8f}};
    in.level = {level_val};
    S{i} out{{}};
    const std::size_t bytes = roundtrip_S{i}(in, out);
    const bool same = out.health == in.health && out.ammo == in.ammo && out.alive && out.name == in.name &&
                      out.inventory == in.inventory && out.flags == in.flags && out.slot == in.slot &&
                      out.level == in.level && std::fabs(static_cast<float>(out.x) - 12.34f) <= 0.01f &&
                      std::fabs(out.orientation.w - 0.8f) <= 0.01f;
    return same ? bytes : 0;
}}

"""

MAIN = """\
int main()
{{
    static std::size_t (*const checks[])() = {{{checks}}};
    std::size_t total = 0;
    int failed = 0;
    for (std::size_t (*check)() : checks) {{
        const std::size_t bytes = check();
        failed += bytes == 0;
        total += bytes;
    }}
    std::printf("%s: {n} structs, %zu bytes, %d failed\\n", "{side}", total, failed);
    return failed == 0 ? 0 : 1;
}}
"""

PRELUDE = """\
// Generated by bench/compile_time/generate.py {n}: do not edit.
{includes}
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

"""


def check_values(p):
    i = p["i"]
    return dict(p, health_val=42 + i % 50, ammo_val=500 + i % 400, inv_last=3 + i % 100,
                level_val=-7 + i % 40)


def write_tu(path, n, side, includes, struct_template, after_struct=""):
    parts = [PRELUDE.format(n=n, includes=includes)]
    for i in range(n):
        p = params(i)
        parts.append(struct_template.format(**p).replace("std::size_t roundtrip_S", after_struct.format(**p) + "std::size_t roundtrip_S", 1))
        parts.append(CHECK.format(**check_values(p)))
    checks = ", ".join("check_S%d" % i for i in range(n))
    parts.append(MAIN.format(n=n, side=side, checks=checks))
    with open(path, "w") as f:
        f.write("".join(parts))


def main(argv):
    if len(argv) != 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        sys.stderr.write("usage: generate.py N OUTDIR  (N >= 1)\n")
        return 2
    n = int(argv[1])
    outdir = argv[2]
    os.makedirs(outdir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    inlined = "#define BITREP_INLINE_CODECS 1 // every type through its inlined codec\n#include <bitrep/bitrep.hpp>"
    write_tu(os.path.join(outdir, "bitrep_%d.cpp" % n), n, "bitrep", inlined, BITREP_STRUCT)
    # The same, with each struct's codecs declared extern (BITREP_EXTERN): what
    # every file but one costs when a program compiles them once
    # (BITREP_INSTANTIATE in a file of their own).
    write_tu(os.path.join(outdir, "extern_%d.cpp" % n), n, "bitrep", inlined, BITREP_STRUCT,
             "BITREP_EXTERN(S{i})\n\n")
    # The same structs through the table engine: one constant table per
    # struct, the interpreter in the library (src/engine/*.cpp).
    write_tu(os.path.join(outdir, "tables_%d.cpp" % n), n, "tables", "#include <bitrep/bitrep.hpp>",
             BITREP_STRUCT)
    write_tu(os.path.join(outdir, "hand_%d.cpp" % n), n, "hand",
             '#include "%s"' % os.path.join(here, "handwritten.hpp"), HAND_STRUCT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
