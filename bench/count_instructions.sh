#!/usr/bin/env bash
# Deterministic cost of each benchmark: instructions per call of the
# encode/decode function (callgrind), reflected and hand-written side by
# side. Timings on a shared host drift; instruction counts do not, so use
# these to decide whether a change helped, and the benchmarks for time.
#   bench/count_instructions.sh BUILD_DIR [bench_name ...]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [bench_name ...]}
shift
benches=("$@")
((${#benches[@]})) || benches=(monster_bench cubes_bench)
out=$(mktemp -d)
for bench in "${benches[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$bench.cg" \
    "$build/bench/$bench" --benchmark_min_time=0.01 > /dev/null 2>&1
  # Inclusive instructions of Codec::to_bytes / from_bytes (kept out of line
  # in the benchmarks) under each benchmark loop, divided by their call
  # counts: the first, costliest callee of each loop is that wrapper.
  callgrind_annotate --inclusive=yes --tree=caller "$out/$bench.cg" 2>/dev/null |
    awk -v bench="$bench" '
      /^ *[0-9,]+ +\([ 0-9.]+%\) +< .*(encode|decode)<[^>]*(reflected|hand_written)>.*\([0-9]+x\)/ {
        ir = $1; gsub(",", "", ir)
        match($0, /\(([0-9]+)x\)/); calls = substr($0, RSTART + 1, RLENGTH - 3)
        op = ($0 ~ /encode</) ? "encode" : "decode"
        side = ($0 ~ /reflected/) ? "reflected" : "hand_written"
        key = op " " side
        if (!(key in seen)) { seen[key] = 1; cost[key] = ir / calls }
      }
      END {
        split("encode decode", list, " ")
        for (i = 1; i <= 2; ++i) {
          r = cost[list[i] " reflected"]; h = cost[list[i] " hand_written"]
          if (h > 0) printf "%-14s %-7s reflected %10.0f  hand-written %10.0f  ratio %.3f\n", bench, list[i], r, h, r / h
        }
      }'
done
rm -rf "$out"
