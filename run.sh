#!/usr/bin/env bash
# bitrep's two entry points on a fresh Debian bookworm machine:
#   ./run.sh example   installs what is missing, builds, runs the main example
#                      (examples/arena; options after it go to the arena, e.g. --loss 0.25
#                      or --clients 64)
#   ./run.sh test      installs what is missing, checks the house rules of
#                      include/ and src/ (tools/check_house.py: file and
#                      function length, layers, no detail:: in public
#                      declarations) and that every
#                      reference to the docs resolves (tools/check_doc_links.py),
#                      builds with g++
#                      and clang (-Werror; g++ optimised, clang and g++
#                      unoptimised under ASan and UBSan), runs every test,
#                      and checks find_package() from a separate consumer
#                      project
#   ./run.sh bandwidth installs what is missing, builds the cube scene and the
#                      bandwidth yardstick (g++ Release), generates the default
#                      scene and prints the table (docs/benchmarks.md)
#   ./run.sh tidy      runs clang-tidy-14 (.clang-tidy) over src/, tools/ and
#                      examples/ and the library headers they include; fails on
#                      any warning (./run.sh test runs it too)
#   ./run.sh fuzz [SECONDS] [RUNS]
#                      builds the libFuzzer targets (clang -O2, ASan and UBSan) and
#                      runs each for SECONDS (default 600) or RUNS executions,
#                      whichever ends first, keeping its corpus in
#                      build/fuzz-corpus/<target> (seeded by its generator,
#                      <target>_seeds, before each run); prints each target's
#                      executions, coverage and outcome (docs/design/robustness.md)
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake make g++ clang libclang-rt-14-dev libboost1.81-dev libgtest-dev libbenchmark-dev
          nlohmann-json3-dev libcli11-dev libcereal-dev libode-dev libglm-dev
          libzstd-dev libsodium-dev clang-tidy-14 python3 pkg-config)
jobs=$(nproc)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# configure DIR COMPILER BUILD_TYPE [CMAKE OPTIONS...]
configure() {
  mkdir -p "$(dirname "$1")"
  cmake -S . -B "$1" -DCMAKE_CXX_COMPILER="$2" -DCMAKE_BUILD_TYPE="$3" "${@:4}" > "$1.configure.log" \
    || { cat "$1.configure.log"; return 1; }
}

configure_and_build() {
  configure "$@"
  cmake --build "$1" -j "$jobs"
}

# clang-tidy over every compiled file of the library, tools and examples
# (the headers they include with them), a file per job.
run_tidy() {
  configure build/tidy clang++ Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DBITREP_BUILD_TESTS=OFF \
    -DBITREP_BUILD_BENCHMARKS=OFF
  printf '%s\n' src/*.cpp src/engine/*.cpp tools/*.cpp examples/*.cpp examples/arena/*.cpp |
    xargs -P "$jobs" -n 1 clang-tidy-14 -p build/tidy --quiet
  echo "clang-tidy: no warnings"
}

case "${1:-}" in
  example)
    install_missing
    configure build/release g++ Release
    cmake --build build/release -j "$jobs" --target arena quickstart
    args=("${@:2}")
    # "./run.sh example -- --clients 64" works too: the "--" is ours, not the arena's.
    if ((${#args[@]})) && [ "${args[0]}" = "--" ]; then args=("${args[@]:1}"); fi
    ./build/release/examples/arena/arena "${args[@]}"
    ;;
  bandwidth)
    install_missing
    configure build/release g++ Release
    cmake --build build/release -j "$jobs" --target cubes_scene cubes_bandwidth
    ./build/release/bench/cubes/cubes_bandwidth "${@:2}"
    ;;
  test)
    install_missing
    # Before any build: a file or function too long, an include against the
    # layers (in include/ or src/) or detail:: in a public declaration fails
    # the run at once.
    python3 tools/check_house.py
    # Every docs/ path named in the tree, with its section, and every
    # relative link of the docs exists.
    python3 tools/check_doc_links.py
    # g++ optimised and clang unoptimised: the golden vectors in both builds
    # prove the wire does not depend on compiler or optimisation level. The
    # clang build runs every test under AddressSanitizer and UBSan, and
    # fuzzes from_bytes with libFuzzer for a bounded time. The tests and
    # examples run under both sanitizers with g++ too, whose UBSan refuses
    # constant expressions that clang's accepts: unoptimised, with
    # assertions, a file costs about what it costs at -O3 (sanitized at -O1
    # or -O2, two to six times as much), and what only checks compiling
    # (BITREP_COMPILE_CHECKS) is left to the other two builds. That last
    # build also writes every value its tests write through the engine with
    # the inlined codecs too, and stops at any difference (BITREP_CROSS_CHECK).
    configure_and_build build/release g++ Release
    configure_and_build build/clang-debug clang++ Debug -DBITREP_SANITIZE=ON -DBITREP_FUZZ=ON \
      -DBITREP_BUILD_BENCHMARKS=OFF
    configure_and_build build/gcc-debug g++ Debug -DBITREP_SANITIZE=ON -DBITREP_BUILD_BENCHMARKS=OFF \
      -DBITREP_COMPILE_CHECKS=OFF -DBITREP_CROSS_CHECK=ON
    (cd build/release && ctest --output-on-failure -j "$jobs")
    (cd build/clang-debug && ctest --output-on-failure -j "$jobs")
    (cd build/gcc-debug && ctest --output-on-failure -j "$jobs")
    # Installed package, used from another project through find_package().
    rm -rf build/stage build/consumer
    cmake --install build/release --prefix "$PWD/build/stage" > /dev/null
    cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$PWD/build/stage" > build/consumer.configure.log \
      || { cat build/consumer.configure.log; exit 1; }
    cmake --build build/consumer -j "$jobs"
    ./build/consumer/consumer
    # The same program built without CMake, from the installed bitrep.pc.
    # shellcheck disable=SC2046 # pkg-config's flags are meant to split
    g++ -std=c++20 tests/consumer/main.cpp $(PKG_CONFIG_PATH="$PWD/build/stage/lib/pkgconfig" pkg-config --cflags --libs bitrep) \
      -o build/consumer/consumer_pkg_config
    ./build/consumer/consumer_pkg_config
    run_tidy
    ;;
  tidy)
    install_missing
    run_tidy
    ;;
  fuzz)
    install_missing
    seconds="${2:-600}"
    runs="${3:--1}"
    # Optimised (-O2, assertions kept) under ASan and UBSan: several times the
    # executions per second of the -O0 build CTest fuzzes with
    # (docs/design/robustness.md).
    configure build/fuzz clang++ RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g" -DBITREP_SANITIZE=ON \
      -DBITREP_FUZZ=ON -DBITREP_BUILD_BENCHMARKS=OFF -DBITREP_BUILD_EXAMPLES=OFF -DBITREP_BUILD_TESTS=OFF
    targets=()
    for source in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$source" .cpp)"); done
    # Each target X_fuzz with its seed corpus generator X_seeds.
    cmake --build build/fuzz -j "$jobs" --target "${targets[@]}" "${targets[@]/%_fuzz/_seeds}"
    status=0
    for target in "${targets[@]}"; do
      corpus="build/fuzz-corpus/$target"
      mkdir -p "$corpus"
      # Its seeds join the corpus (files already there stay).
      "./build/fuzz/tests/fuzz/${target%_fuzz}_seeds" "$corpus" > /dev/null
      log="build/fuzz-corpus/$target.log"
      if "./build/fuzz/tests/fuzz/$target" -max_total_time="$seconds" -runs="$runs" -max_len=2048 -malloc_limit_mb=64 \
           -print_final_stats=1 "$corpus" > "$log" 2>&1; then outcome="no crash"; else outcome="FAILED (see $log)"; status=1; fi
      execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
      last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
      cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || true)
      ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || true)
      printf '%-20s %12s executions  %6s edges (cov)  %7s features (ft)  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$outcome"
    done
    exit "$status"
    ;;
  *)
    echo "usage: $0 example|test|bandwidth|fuzz" >&2
    exit 2
    ;;
esac
