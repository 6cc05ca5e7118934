"""Evaluates a full submission (one candidate per task of the paper's set) and reports throughput, the
per-stage time breakdown, and repeatability (the same submission twice, same seed: median relative
difference of per-task speedups).

Each task's candidate is, in order of preference: kbx's reference solution (kernelbenchx/solutions); the last
generated kernel for the task in an upstream-format corpus (`--corpus`, e.g. ../shared/upstream/all_records.jsonl:
real model output, right or wrong); otherwise a placeholder without a kernel, rejected statically. The
report counts each kind.

    python benchmarks/full_submission.py --out bench-out [--runs 2] [--corpus PATH] [--device cuda]
    python benchmarks/full_submission.py --out bench-out --submission bench-out/submission.jsonl --runs 1
    python benchmarks/full_submission.py --compare bench-a/run0 bench-b/run0   # per task, then per timing
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from kernelbenchx.dataset.registry import normalize_id, tasks_in
from kernelbenchx.evaluator.parent.context import RunConfig
from kernelbenchx.evaluator.parent.run import evaluate_submission
from kernelbenchx.evaluator.parent.rundir import read_results
from kernelbenchx.evaluator.result import Result

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "kernelbenchx" / "solutions"


def corpus_kernels(corpus: Path | None) -> dict[str, str]:
    """The last generated kernel per task of an upstream-format corpus (later lines win)."""
    if corpus is None:
        return {}
    kernels = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("after_code"):
            kernels[normalize_id(record["task_id"])] = record["after_code"]
    return kernels


def build_submission(path: Path, corpus: Path | None) -> Counter:
    generated = corpus_kernels(corpus)
    methods: Counter = Counter()
    with open(path, "w") as f:
        for task in tasks_in(paper_only=True):
            solution = SOLUTIONS / f"{task.id}.py"
            if solution.exists():
                code, method = solution.read_text(), "kept-solution"
            elif task.id in generated:
                code, method = generated[task.id], "upstream-generated"
            else:
                code, method = f"def {task.entry}(*args, **kwargs):\n    raise NotImplementedError\n", "placeholder"
            methods[method] += 1
            f.write(json.dumps({"task_id": task.id, "code": code, "method": method}) + "\n")
    return methods


def stage_seconds(records: list[Result]) -> dict[str, float]:
    keys = {"static": ("compile", "static_s"), "device_open": ("compile", "device_open_s"),
            "process_start": ("compile", "process_start_s"),
            "reference_wait": ("correct", "reference_wait_s"), "correctness": ("correct", "seconds"),
            "perf_lane_wait": ("perf", "lane_wait_s"), "perf": ("perf", "seconds")}
    return {name: round(sum(r.stages.get(s, {}).get(k, 0) or 0 for r in records), 2)
            for name, (s, k) in keys.items()}


def median_of(records: list[Result], stage: str, key: str) -> float | None:
    values = [r.stages.get(stage, {}).get(key) for r in records]
    values = [v for v in values if isinstance(v, (int, float))]
    return round(statistics.median(values), 3) if values else None


def lane_phases(records: list[Result]) -> dict[str, float]:
    """Seconds of timing-lane work per phase, summed over every timed case of every candidate."""
    totals: Counter = Counter()
    for r in records:
        for case in r.stages.get("perf", {}).get("cases") or []:
            for side, phases in (case.get("phases_s") or {}).items():
                for phase, seconds in (phases or {}).items():
                    totals[f"{side}.{phase}"] += seconds
    return {k: round(v, 2) for k, v in sorted(totals.items())}


PARITY = 0.02


def repeatability(a: list[Result], b: list[Result]) -> dict:
    """Per-task speedup differences between two runs: median, p90, max, and tasks crossing 1.0x; the same apart
    for the tasks timed by graph replays alone and for those with a timing that also measures the host (eager,
    single call: their `why` says what made them so)."""
    sa = {r.task_id: r.speedup() for r in a}
    sb = {r.task_id: r.speedup() for r in b}
    both = [t for t in sa if sa[t] and sb.get(t)]
    diff = {t: abs(sa[t] - sb[t]) / sa[t] for t in both}
    crossing = sorted(t for t in both if (sa[t] - 1) * (sb[t] - 1) < 0)
    # a task at parity (within PARITY of 1.0x in either run) can cross by noise alone; counted apart
    clear = [t for t in crossing if min(abs(sa[t] - 1), abs(sb[t] - 1)) > PARITY]
    host = host_timed(a) | host_timed(b)
    return {**spread(list(diff.values())), "crossing_1x": crossing, f"crossing_1x_beyond_{PARITY:.0%}": clear,
            "graph_only": spread([d for t, d in diff.items() if t not in host]),
            "with_host_timing": spread([d for t, d in diff.items() if t in host])}


SIZES_MS = ((0.0, 0.01, "under 10 us"), (0.01, 0.1, "10-100 us"), (0.1, 1.0, "0.1-1 ms"), (1.0, float("inf"), "1 ms+"))


def timing_repeatability(a: list[Result], b: list[Result], top: int = 8) -> dict:
    """The same per single timing (each case's candidate and eager baseline): relative differences of medians by
    the timing's size and by whether it was a graph replay, and the timings that moved most. Where the per-task
    tail comes from: few-microsecond kernels, one slow process, or work timed with its host."""
    def medians(records: list[Result]) -> dict[tuple, tuple[float, str]]:
        out = {}
        for r in records:
            for i, case in enumerate((r.stages.get("perf") or {}).get("cases", [])):
                for side, t in (("candidate", case["candidate"]), ("baseline", case["baselines"].get("eager"))):
                    if t and t.get("median_ms"):
                        out[(r.task_id, i, side)] = (t["median_ms"], t.get("method", ""))
        return out

    ma, mb = medians(a), medians(b)
    rows = [(abs(mb[k][0] / ma[k][0] - 1), mb[k][0] / ma[k][0] - 1, k, ma[k]) for k in ma if k in mb]
    timings = lambda keep: spread([d for d, _, _, (ms, method) in rows if keep(ms, method)], "timings")  # noqa: E731
    moved = [f"{task} case {i} {side} {ms:.4g} ms ({method}): {signed:+.1%}"
             for _, signed, (task, i, side), (ms, method) in sorted(rows, reverse=True)[:top]]
    return {**timings(lambda ms, method: True),
            "by_size": {name: timings(lambda ms, method, lo=lo, hi=hi: lo <= ms < hi) for lo, hi, name in SIZES_MS},
            "graph_replays": timings(lambda ms, method: method == "cuda_graph"),
            "other_methods": timings(lambda ms, method: method != "cuda_graph"), "moved_most": moved}


def spread(values: list[float], what: str = "tasks") -> dict:
    diffs = sorted(values)
    return {f"{what}_compared": len(diffs), "median_rel_diff": statistics.median(diffs) if diffs else None,
            "p90_rel_diff": diffs[int(0.9 * (len(diffs) - 1))] if diffs else None,
            "max_rel_diff": diffs[-1] if diffs else None}


def host_timed(records: list[Result]) -> set[str]:
    """Tasks with a candidate or eager-baseline timing that is not a graph replay."""
    return {r.task_id for r in records for case in (r.stages.get("perf") or {}).get("cases", [])
            if any(t and t.get("method") != "cuda_graph" for t in (case["candidate"], case["baselines"].get("eager")))}


def run_once(submission: Path, out: Path, args: argparse.Namespace) -> dict:
    started = time.perf_counter()
    config = RunConfig(out_dir=out, device=args.device, seed=args.seed, workers=args.workers, resume=args.resume,
                       overwrite=not args.resume, perf_timeout_s=args.perf_timeout, task_set="submitted")
    evaluate_submission(submission, config)
    wall = time.perf_counter() - started
    records = read_results(out)
    return {"wall_s": round(wall, 1), "candidates": len(records), "workers": config.resolved_workers(),
            "candidates_per_min": round(len(records) / wall * 60, 1),
            "verdicts": dict(Counter(r.verdict.value for r in records)),
            "verdicts_by_method": {m: dict(Counter(r.verdict.value for r in records if r.candidate.method == m))
                                   for m in sorted({r.candidate.method or "" for r in records})},
            "median_process_start_s": median_of(records, "compile", "process_start_s"),
            "stage_seconds": stage_seconds(records), "lane_phases": lane_phases(records), "records": records}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--device", default=None)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--workers", type=int, default=0, help="candidate worker processes (0: the default)")
    parser.add_argument("--perf-timeout", type=float, default=90.0, help="a candidate's perf-stage allowance")
    parser.add_argument("--resume", action="store_true", help="continue run0 instead of starting it")
    parser.add_argument("--corpus", type=Path, default=None, help="upstream-format corpus of generated kernels")
    parser.add_argument("--submission", type=Path, default=None, help="evaluate this file instead of building one")
    parser.add_argument("--compare", type=Path, nargs=2, default=None, metavar="RUN_DIR",
                        help="only report the repeatability of two finished runs")
    args = parser.parse_args()
    if args.compare:
        a, b = (read_results(d) for d in args.compare)
        print(json.dumps(repeatability(a, b)))
        print(json.dumps({"per_timing": timing_repeatability(a, b)}))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    submission = args.submission or args.out / "submission.jsonl"
    if args.submission is None:
        methods = build_submission(submission, args.corpus)
    else:
        methods = Counter(json.loads(line)["method"] for line in submission.read_text().splitlines() if line)
    print(f"submission: {dict(methods)}")
    runs = []
    for i in range(args.runs):
        runs.append(run_once(submission, args.out / f"run{i}", args))
        r = runs[-1]
        print(f"run {i}: {r['candidates']} candidates in {r['wall_s']} s = {r['candidates_per_min']} /min "
              f"({r['workers']} workers); verdicts {r['verdicts_by_method']}; "
              f"stage seconds (summed over candidates) {r['stage_seconds']}; timing-lane phases {r['lane_phases']}",
              flush=True)
    result = {"candidates_by_method": dict(methods),
              "runs": [{k: v for k, v in r.items() if k != "records"} for r in runs]}
    if len(runs) > 1:
        result["repeatability"] = repeatability(runs[0]["records"], runs[1]["records"])
        print(f"repeatability: {result['repeatability']}")
    (args.out / "benchmark.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
