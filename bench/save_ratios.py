#!/usr/bin/env python3
"""save_bench medians and ratios (bitrep / cereal, schema path / fast path).

Runs each build's save_bench RUNS times, alternating the builds so that
they share the host's conditions, each run with 5 interleaved repetitions,
and prints per build the median over runs of each benchmark's median time,
then the median (and range) of the per-run ratios. Memory benchmarks are
compared in CPU time; disk benchmarks (UseRealTime) in real time, since
waiting for fsync is their cost. Absolute times drift on a shared host;
ratios within one run do much less.

    bench/save_ratios.py [--runs N] [--min-time S] [--raw DIR] BUILD_DIR [BUILD_DIR ...]
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCALE = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}  # to milliseconds
ORDER = ["BM_bitrep_save_memory", "BM_cereal_save_memory", "BM_bitrep_load_memory", "BM_bitrep_loader_load_memory",
         "BM_cereal_load_memory", "BM_bitrep_load_memory_fresh", "BM_cereal_load_memory_fresh",
         "BM_bitrep_load_memory_schema_path", "BM_bitrep_loader_load_memory_schema_path",
         "BM_bitrep_save_disk/real_time", "BM_cereal_save_disk/real_time", "BM_bitrep_load_disk/real_time",
         "BM_bitrep_loader_load_disk/real_time", "BM_cereal_load_disk/real_time"]
RATIOS = [
    ("save, memory", "BM_bitrep_save_memory", "BM_cereal_save_memory"),
    ("load, memory (load_from_bytes)", "BM_bitrep_load_memory", "BM_cereal_load_memory"),
    ("load, memory (loader)", "BM_bitrep_loader_load_memory", "BM_cereal_load_memory"),
    ("load, memory, fresh world each time", "BM_bitrep_load_memory_fresh", "BM_cereal_load_memory_fresh"),
    ("save, disk", "BM_bitrep_save_disk/real_time", "BM_cereal_save_disk/real_time"),
    ("load, disk (load)", "BM_bitrep_load_disk/real_time", "BM_cereal_load_disk/real_time"),
    ("load, disk (loader)", "BM_bitrep_loader_load_disk/real_time", "BM_cereal_load_disk/real_time"),
    ("schema path / fast path (load_from_bytes)", "BM_bitrep_load_memory_schema_path", "BM_bitrep_load_memory"),
    ("schema path / fast path (loader)", "BM_bitrep_loader_load_memory_schema_path", "BM_bitrep_loader_load_memory"),
]


def one_run(binary: Path, min_time: float, raw: Path | None, label: str) -> dict[str, tuple[float, float]]:
    """{benchmark: (median ms compared, median CPU ms)} for one run: the compared
    time is real time for disk, CPU time otherwise."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        console = subprocess.run([str(binary), "--benchmark_repetitions=5", "--benchmark_enable_random_interleaving=true",
                                  "--benchmark_report_aggregates_only=true", f"--benchmark_min_time={min_time}",
                                  f"--benchmark_out={out.name}", "--benchmark_out_format=json"],
                                 capture_output=True, text=True, check=True)
        report = json.loads(Path(out.name).read_text())
    if raw is not None:
        (raw / f"{label}.txt").write_text(console.stdout + console.stderr)
    medians = {}
    for bm in report["benchmarks"]:
        if bm.get("aggregate_name") == "median":
            key = "real_time" if bm["run_name"].endswith("/real_time") else "cpu_time"
            medians[bm["run_name"]] = (bm[key] * SCALE[bm["time_unit"]], bm["cpu_time"] * SCALE[bm["time_unit"]])
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--raw", type=Path, help="keep each run's console output in this directory")
    parser.add_argument("build_dirs", nargs="+", type=Path)
    args = parser.parse_args()
    if args.raw is not None:
        args.raw.mkdir(parents=True, exist_ok=True)
    runs: dict[Path, list[dict[str, tuple[float, float]]]] = {build: [] for build in args.build_dirs}
    for run in range(args.runs):
        for build in args.build_dirs:
            label = f"{build.name}-run{run + 1}"
            runs[build].append(one_run(build / "bench" / "save_bench", args.min_time, args.raw, label))
            print(f"done: {label}", file=sys.stderr, flush=True)

    seen = runs[args.build_dirs[0]][0]
    names = [n for n in ORDER if n in seen] + sorted(n for n in seen if n not in ORDER)
    print("| benchmark | " + " | ".join(f"{b.name} (ms)" for b in args.build_dirs) + " |")
    print("|---|" + "---:|" * len(args.build_dirs))
    for name in names:
        cells = []
        for build in args.build_dirs:
            cell = f"{statistics.median(r[name][0] for r in runs[build]):.1f}"
            if name.endswith("/real_time"):
                cell += f" (CPU {statistics.median(r[name][1] for r in runs[build]):.1f})"
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print("| ratio | " + " | ".join(f"{b.name}" for b in args.build_dirs) + " |")
    print("|---|" + "---:|" * len(args.build_dirs))
    for label, top, bottom in RATIOS:
        cells = []
        for build in args.build_dirs:
            ratios = [r[top][0] / r[bottom][0] for r in runs[build]]
            cells.append(f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
