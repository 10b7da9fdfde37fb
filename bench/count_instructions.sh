#!/usr/bin/env bash
# Deterministic cost of each benchmark: instructions per call of the
# reflected and hand-written entry points, side by side (callgrind). Timings
# on a shared host drift; instruction counts do not, so use these to decide
# whether a change helped, and the benchmarks for time.
#   bench/count_instructions.sh BUILD_DIR [bench_name ...]
# (BENCH_MIN_TIME=0.2 runs more iterations, so that a first call that
# allocates a working object weighs less in the mean)
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [bench_name ...]}
shift
benches=("$@")
((${#benches[@]})) || benches=(monster_bench cubes_bench)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bench in "${benches[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$bench.cg" \
    "$build/bench/$bench" --benchmark_min_time="${BENCH_MIN_TIME:-0.01}" > /dev/null 2>&1
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
        else if ($0 ~ /side_by_side::reflected_decoder<.*>::from_bytes\(/) side = "decoder"
        else if ($0 ~ /side_by_side::inlined<.*>::(to|from)_bytes\(/) side = "inlined"
        else if ($0 ~ /hand_written::(to|from)_bytes\(/) side = "hand_written"
        else if ($0 ~ /hand_written_in_place::from_bytes\(/) side = "in_place"
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
        for (i = 1; i <= 2; ++i) {
          t = cost[list[i] " inlined"]; h = cost[list[i] " hand_written"]
          if (h > 0 && t > 0) printf "%-14s %-7s inlined   %10.0f  hand-written %10.0f  ratio %.3f\n", bench, list[i], t, h, t / h
        }
        # decoder<T> and from_bytes against the in-place
        # hand-written decoder (no all-or-nothing copy).
        p = cost["decode in_place"]; d = cost["decode decoder"]; r = cost["decode reflected"]
        if (p > 0 && d > 0)
          printf "%-14s decode  decoder<T> %9.0f  from_bytes %10.0f  in place %10.0f  ratios %.3f %.3f\n", bench, d, r, p, d / p, r / p
      }'
done
