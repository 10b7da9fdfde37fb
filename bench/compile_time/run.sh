#!/usr/bin/env bash
# Compile-time benchmark: bitrep's reflected serialization (the table engine,
# and every type's codec inlined) against the same structs serialized by hand
# (see README.md).
#
#   bench/compile_time/run.sh [N...]          (default: 1 20 100)
#
# Environment:
#   REPEAT=3        runs per measurement; the median is reported
#   EXTRA_FLAGS=    appended to every bitrep compile (not the hand-written one),
#                   e.g. EXTRA_FLAGS=-DSOMETHING
#   COMPILERS="g++ clang++"
#   OPTS="-O0 -O2"
#   CHECK=1         first link and run each generated program and gameplay.cpp
#                   at -O2 (every compiler) to prove every side round-trips
#                   (the tables side and the gameplay file linked with the
#                   library's sources, compiled once per compiler)
#   KEEP=1          keep the build directory (its path is printed)
#   SIDES="bitrep hand extern tables"  the sides to time (the others print -)
#   CLOCK=wall      wall: elapsed seconds; cpu: user + system seconds (steadier
#                   on a machine running other jobs)
#
# Compiles run one at a time (no parallelism) so that timings are not disturbed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
include_dir="$source_dir/include"
repeat="${REPEAT:-3}"
extra_flags="${EXTRA_FLAGS:-}"
compilers="${COMPILERS:-g++ clang++}"
opts="${OPTS:--O0 -O2}"
sides=" ${SIDES:-bitrep hand extern tables} "
clock_cpu=0
[ "${CLOCK:-wall}" = cpu ] && clock_cpu=1
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1 20 100)

if ! [[ "$repeat" =~ ^[1-9][0-9]*$ ]]; then
    echo "REPEAT must be a positive integer (got '$repeat')" >&2
    exit 2
fi
for n in "${sizes[@]}"; do
    if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
        echo "usage: $0 [N...]  (each N a positive integer)" >&2
        exit 2
    fi
done

common_flags=(-std=c++20 -Wall -Wextra -Wpedantic -Werror)
# shellcheck disable=SC2206 # EXTRA_FLAGS is split on spaces on purpose
bitrep_flags=(-I"$include_dir" $extra_flags)

build="$(mktemp -d "${TMPDIR:-/tmp}/bitrep_compile_time.XXXXXX")"
if [ "${KEEP:-0}" = 1 ]; then
    echo "build directory: $build"
else
    trap 'rm -rf "$build"' EXIT
fi

have_time=1
if [ ! -x /usr/bin/time ]; then
    have_time=0
    echo "note: /usr/bin/time is missing (Debian package 'time'); timing with bash's TIMEFORMAT, no peak memory" >&2
fi

# measure OUTFILE CMD...: runs CMD once, writes "seconds kilobytes" (kilobytes
# "-" without /usr/bin/time) to OUTFILE; on a failed compile prints its output
# and exits.
measure() {
    local out="$1"
    shift
    local err="$build/stderr.txt"
    if [ "$have_time" = 1 ]; then
        if ! /usr/bin/time -f "%e %M %U %S" -o "$out.raw" "$@" 2>"$err"; then
            echo "compile failed: $*" >&2
            cat "$err" >&2
            exit 1
        fi
        # CLOCK=cpu: user + system time, which other jobs on the machine
        # disturb less than the wall clock.
        awk -v cpu="$clock_cpu" '{ if (cpu) printf "%.2f %s\n", $3 + $4, $2; else print $1, $2 }' "$out.raw" >"$out"
    else
        local TIMEFORMAT=%R status=0
        { time "$@" 2>"$err"; } 2>"$out.t" || status=$?
        if [ "$status" != 0 ]; then
            echo "compile failed: $*" >&2
            cat "$err" >&2
            exit 1
        fi
        echo "$(cat "$out.t") -" >"$out"
    fi
}

# median FILE COLUMN: the median of a column of numbers ("-" if not numbers).
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '
        /^-$/ { dash = 1 }
        { v[NR] = $1 }
        END {
            if (dash || NR == 0) { print "-"; exit }
            if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2
        }'
}

# time_compile RESULTFILE CMD...: REPEAT runs, appending "seconds kilobytes" lines.
time_compile() {
    local results="$1"
    shift
    measure "$build/one.txt" "$@"
    cat "$build/one.txt" >>"$results"
}

# time_bitrep_source RESULTFILE CXX OPT SOURCE: REPEAT compiles of SOURCE
# with bitrep's flags, their "seconds kilobytes" lines in RESULTFILE.
time_bitrep_source() {
    local results="$1" cxx="$2" opt="$3" source="$4"
    : >"$results"
    for ((r = 0; r < repeat; r++)); do
        time_compile "$results" "$cxx" "${common_flags[@]}" "$opt" "${bitrep_flags[@]}" \
            -c "$source" -o "$build/single.o"
    done
}

# ratio A B: A / B to one decimal ("-" when B is not positive).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b > 0) printf "%.1f", a / b; else print "-" }'; }

mb() { [ "$1" = "-" ] && echo "-" || awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# Header: what is measured.
echo "bitrep compile-time benchmark: REPEAT=$repeat (median), compile only (-c), ${CLOCK:-wall} seconds"
echo "include: $include_dir"
if git -C "$include_dir" rev-parse --short HEAD >/dev/null 2>&1; then
    dirty=""
    git -C "$include_dir" diff --quiet HEAD -- . || dirty=" (include/ modified)"
    echo "tree:    $(git -C "$include_dir" rev-parse --short HEAD)$dirty"
fi
[ -n "$extra_flags" ] && echo "EXTRA_FLAGS (bitrep only): $extra_flags"
for cxx in $compilers; do
    echo "$cxx:  $("$cxx" --version | head -n 1)"
done
echo

for n in "${sizes[@]}"; do
    python3 "$here/generate.py" "$n" "$build"
done

if [ "${CHECK:-0}" = 1 ]; then
    # The tables side runs the engine of the library and the gameplay file
    # the whole library: src/*.cpp and src/engine/*.cpp (without zstd and
    # libsodium, which neither uses), compiled once per compiler.
    for cxx in $compilers; do
        library_objects=()
        for source in "$source_dir"/src/*.cpp "$source_dir"/src/engine/*.cpp; do
            object="$build/library_${cxx}_$(basename "$source" .cpp).o"
            "$cxx" "${common_flags[@]}" -O2 "${bitrep_flags[@]}" -c "$source" -o "$object"
            library_objects+=("$object")
        done
        ar rcs "$build/library_$cxx.a" "${library_objects[@]}"
    done
    for n in "${sizes[@]}"; do
        for cxx in $compilers; do
            for side in bitrep tables hand; do
                flags=("${common_flags[@]}" -O2)
                [ "$side" != hand ] && flags+=("${bitrep_flags[@]}")
                objects=()
                [ "$side" = tables ] && objects=("$build/library_$cxx.a")
                "$cxx" "${flags[@]}" "$build/${side}_$n.cpp" "${objects[@]}" -o "$build/${side}_$n.exe"
                printf 'check %-8s ' "$cxx"
                "$build/${side}_$n.exe"
            done
        done
    done
    for cxx in $compilers; do
        "$cxx" "${common_flags[@]}" -O2 "${bitrep_flags[@]}" "$here/gameplay.cpp" "$build/library_$cxx.a" -pthread \
            -o "$build/gameplay.exe"
        printf 'check %-8s ' "$cxx"
        "$build/gameplay.exe"
    done
    echo
fi

# bitrep.hpp: everything; annotations.hpp: what declaring annotated types needs.
bare_headers=(bitrep/bitrep.hpp bitrep/annotations.hpp)
for header in "${bare_headers[@]}"; do
    printf '%s\n' "#include <$header>" 'int main() {}' >"$build/bare_${header//\//_}.cpp"
done

row_format='%-8s %-4s %5s %9s %8s %6s %10s %8s %9s %6s %9s %6s %10s\n'
printf "$row_format" compiler opt N bitrep_s hand_s ratio bitrep_MB hand_MB extern_s ratio tables_s ratio tables_MB
for n in "${sizes[@]}"; do
    for cxx in $compilers; do
        for opt in $opts; do
            rb="$build/results_bitrep.txt"
            rh="$build/results_hand.txt"
            re="$build/results_extern.txt"
            rt="$build/results_tables.txt"
            : >"$rb"
            : >"$rh"
            : >"$re"
            : >"$rt"
            for ((r = 0; r < repeat; r++)); do
                for side in bitrep hand extern tables; do
                    [[ "$sides" == *" $side "* ]] || continue
                    flags=("${common_flags[@]}" "$opt")
                    [ "$side" != hand ] && flags+=("${bitrep_flags[@]}")
                    time_compile "$build/results_$side.txt" "$cxx" "${flags[@]}" \
                        -c "$build/${side}_$n.cpp" -o "$build/${side}_$n.o"
                done
            done
            hs="$(median "$rh" 1)"
            bs="$(median "$rb" 1)"
            es="$(median "$re" 1)"
            ts="$(median "$rt" 1)"
            printf "$row_format" "$cxx" "$opt" "$n" "$bs" "$hs" "$(ratio "$bs" "$hs")" \
                "$(mb "$(median "$rb" 2)")" "$(mb "$(median "$rh" 2)")" "$es" "$(ratio "$es" "$hs")" \
                "$ts" "$(ratio "$ts" "$hs")" "$(mb "$(median "$rt" 2)")"
        done
    done
done

echo
echo "bare include (the header and an empty main):"
bare_format='%-8s %-4s %-22s %9s %10s\n'
printf "$bare_format" compiler opt header seconds MB
for cxx in $compilers; do
    for opt in $opts; do
        for header in "${bare_headers[@]}"; do
            rb="$build/results_bare.txt"
            time_bitrep_source "$rb" "$cxx" "$opt" "$build/bare_${header//\//_}.cpp"
            printf "$bare_format" "$cxx" "$opt" "$header" "$(median "$rb" 1)" "$(mb "$(median "$rb" 2)")"
        done
    done
done

# The gameplay file: a world, its save slot, a server and clients (gameplay.cpp).
echo
echo "gameplay file (gameplay.cpp: annotates, saves, loads and replicates):"
gameplay_format='%-8s %-4s %9s %10s\n'
printf "$gameplay_format" compiler opt seconds MB
for cxx in $compilers; do
    for opt in $opts; do
        rg="$build/results_gameplay.txt"
        time_bitrep_source "$rg" "$cxx" "$opt" "$here/gameplay.cpp"
        printf "$gameplay_format" "$cxx" "$opt" "$(median "$rg" 1)" "$(mb "$(median "$rg" 2)")"
    done
done
