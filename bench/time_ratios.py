#!/usr/bin/env python3
"""Time ratios, reflected / hand-written, that survive a noisy shared host.

Runs each benchmark binary RUNS times, each run with 15 repetitions in random
interleaved order, and prints per operation: the median over runs of each
side's per-run median time per object, the median and spread of the per-run
ratios, and the ratio of each side's fastest repetition (median over runs).
Absolute times drift between runs on a shared host; within a run both sides
share its conditions, which is why the ratios are taken per run. Decodes are
also set against the in-place hand-written decoder (HandWrittenInPlace).

    bench/time_ratios.py [--runs N] BUILD_DIR [BUILD_DIR ...]
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

OBJECTS = {"monster_bench": 50, "cubes_bench": 901}  # objects per message
SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6}


def one_run(binary: Path, objects: int) -> dict[str, tuple[float, float]]:
    """{benchmark: (median, fastest)} in ns per object for one run of binary."""
    out = subprocess.run([str(binary), "--benchmark_repetitions=15", "--benchmark_enable_random_interleaving=true",
                          "--benchmark_min_time=0.1", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    times: dict[str, list[float]] = {}
    for bm in json.loads(out)["benchmarks"]:
        if bm.get("run_type") == "iteration":
            times.setdefault(bm["run_name"], []).append(bm["cpu_time"] * SCALE[bm["time_unit"]] / objects)
    return {name: (statistics.median(t), min(t)) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("build_dirs", nargs="+", type=Path)
    args = parser.parse_args()
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for run in range(args.runs):
        for build in args.build_dirs:
            for bench, objects in OBJECTS.items():
                for name, value in one_run(build / "bench" / bench, objects).items():
                    runs.setdefault((str(build), name), []).append(value)
                print(f"run {run + 1}: {build} {bench}", file=sys.stderr, flush=True)
    for build in args.build_dirs:
        for operation in ("Monster/Encode", "Monster/Decode", "Cubes/Encode", "Cubes/Decode"):
            for baseline in ("HandWritten", "HandWrittenInPlace"):
                hand = runs.get((str(build), f"{operation}/{baseline}"))
                if hand is None:
                    continue
                for side in ("Reflected", "ReflectedDecoder"):
                    reflected = runs.get((str(build), f"{operation}/{side}"))
                    if reflected is None:
                        continue
                    ratios = [r[0] / h[0] for r, h in zip(reflected, hand)]
                    fastest = [r[1] / h[1] for r, h in zip(reflected, hand)]
                    print(f"{build}  {operation}/{side:<16} {statistics.median(r[0] for r in reflected):8.1f} ns "
                          f"vs {baseline:<18} {statistics.median(h[0] for h in hand):8.1f} ns  "
                          f"ratio {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f})  "
                          f"min-based {statistics.median(fastest):.3f}")


if __name__ == "__main__":
    main()
