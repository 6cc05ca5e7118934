"""Evaluates a full submission (one candidate per task of the paper's set) and reports throughput, the
per-stage time breakdown, and repeatability (the same submission twice, same seed: median relative
difference of per-task speedups). Tasks without a kept Triton solution get a candidate with no kernel,
which is rejected statically: the report says how many tasks had real kernels.

    python benchmarks/full_submission.py --out bench-out [--runs 2] [--device cuda]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from kernelbenchx.dataset.registry import tasks_in
from kernelbenchx.evaluator.report import read_results, speedup_of
from kernelbenchx.evaluator.run import RunConfig, evaluate_submission

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "tests" / "solutions"


def build_submission(path: Path) -> int:
    real = 0
    with open(path, "w") as f:
        for task in tasks_in(paper_only=True):
            solution = SOLUTIONS / f"{task.id}.py"
            if solution.exists():
                code, real = solution.read_text(), real + 1
            else:
                code = f"def {task.entry}(*args, **kwargs):\n    raise NotImplementedError\n"
            f.write(json.dumps({"task_id": task.id, "code": code, "method": "kept-solution"
                                if solution.exists() else "no-kernel-placeholder"}) + "\n")
    return real


def stage_seconds(records: list[dict]) -> dict[str, float]:
    keys = {"static": ("compile", "static_s"), "process_start": ("compile", "process_start_s"),
            "reference_wait": ("correct", "reference_wait_s"), "correctness": ("correct", "seconds"),
            "perf": ("perf", "seconds")}
    return {name: round(sum(r["stages"].get(s, {}).get(k, 0) or 0 for r in records), 2)
            for name, (s, k) in keys.items()}


def repeatability(a: list[dict], b: list[dict]) -> dict:
    sa = {r["candidate"]["task_id"]: speedup_of(r) for r in a}
    sb = {r["candidate"]["task_id"]: speedup_of(r) for r in b}
    diffs = [abs(sa[t] - sb[t]) / sa[t] for t in sa if sa[t] and sb.get(t)]
    return {"tasks_compared": len(diffs), "median_rel_diff": statistics.median(diffs) if diffs else None,
            "max_rel_diff": max(diffs) if diffs else None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--device", default=None)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    submission = args.out / "submission.jsonl"
    real = build_submission(submission)
    runs = []
    for i in range(args.runs):
        out = args.out / f"run{i}"
        started = time.perf_counter()
        evaluate_submission(submission, RunConfig(out_dir=out, device=args.device, seed=args.seed))
        wall = time.perf_counter() - started
        records = read_results(out / "results.jsonl")
        runs.append({"wall_s": round(wall, 1), "candidates": len(records),
                     "candidates_per_min": round(len(records) / wall * 60, 1),
                     "verdicts": dict(Counter(r["verdict"] for r in records)),
                     "stage_seconds": stage_seconds(records), "records": records})
        print(f"run {i}: {len(records)} candidates ({real} real kernels) in {wall:.1f} s = "
              f"{runs[-1]['candidates_per_min']} /min; verdicts {runs[-1]['verdicts']}; "
              f"stage seconds (summed over candidates) {runs[-1]['stage_seconds']}")
    result = {"real_kernels": real, "runs": [{k: v for k, v in r.items() if k != "records"} for r in runs]}
    if len(runs) > 1:
        result["repeatability"] = repeatability(runs[0]["records"], runs[1]["records"])
        print(f"repeatability: {result['repeatability']}")
    (args.out / "benchmark.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
