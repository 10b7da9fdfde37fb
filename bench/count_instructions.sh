#!/usr/bin/env bash
# Deterministic cost of each benchmark: instructions per call of the
# reflected and hand-written entry points, side by side (callgrind). Timings
# on a shared host drift; instruction counts do not, so use these to decide
# whether a change helped, and the benchmarks for time.
#   bench/count_instructions.sh BUILD_DIR [bench_name ...]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [bench_name ...]}
shift
benches=("$@")
((${#benches[@]})) || benches=(monster_bench cubes_bench)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bench in "${benches[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$bench.cg" \
    "$build/bench/$bench" --benchmark_min_time=0.01 > /dev/null 2>&1
  # The entry points (side_by_side::reflected<T>::to_bytes / from_bytes and
  # each file's hand_written::to_bytes / from_bytes) are kept out of line, so
  # each has one block in the caller tree: its callers' lines ("<", with call
  # counts) and then its own line ("*", with its inclusive cost).
  callgrind_annotate --inclusive=yes --tree=caller "$out/$bench.cg" 2>/dev/null |
    awk -v bench="$bench" '
      /^ *$/ { calls = 0; next }
      / < / { if (match($0, /\(([0-9]+)x\)/)) calls += substr($0, RSTART + 1, RLENGTH - 3); next }
      / \* / {
        side = ""
        if ($0 ~ /side_by_side::reflected<.*>::(to|from)_bytes\(/) side = "reflected"
        else if ($0 ~ /hand_written::(to|from)_bytes\(/) side = "hand_written"
        if (side != "" && calls > 0) {
          ir = $1; gsub(",", "", ir)
          op = ($0 ~ /::to_bytes\(/) ? "encode" : "decode"
          cost[op " " side] = ir / calls
        }
        calls = 0
      }
      END {
        split("encode decode", list, " ")
        for (i = 1; i <= 2; ++i) {
          r = cost[list[i] " reflected"]; h = cost[list[i] " hand_written"]
          if (h > 0) printf "%-14s %-7s reflected %10.0f  hand-written %10.0f  ratio %.3f\n", bench, list[i], r, h, r / h
        }
      }'
done
