#!/usr/bin/env bash
# The server's instructions per client per tick (callgrind), for the rows of
# docs/benchmarks.md, "Server at scale: large worlds":
#   bench/count_server_instructions.sh BUILD_DIR CLIENTS ACK_DELAY coded|bit_packed 901|1000|10000 [LOSS]
set -euo pipefail
build="$1"; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
log=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
      "$build/bench/replication_instructions" "$@" 2>&1)
collected=$(echo "$log" | grep -o "Collected : [0-9]*" | awk '{print $3}')
echo "$log" | grep "bytes per packet"
echo "$* : $((collected / ($1 * 60))) instructions per client per tick"
