"""What a report shows, read from run directories: runs, the series compared within them, per-task verdicts
and speedups, fast_p curves and the perf cases placed on the roofline.

A *series* is one line on a plot: the records of one run that share ``candidate.method`` and
``candidate.model``. A run whose records all share them is one series named after the run; otherwise each
(method, model) is its own series. Every series is summarized by ``parent.summary.summarize`` over the same
task set (with ``submitted``, over the union of the tasks any series submitted), so denominators match and
the numbers equal those of ``summary.json``; this module only adds what summaries do not keep (curves over a
fine grid of p, speedups against the other baselines, the perf cases of each record).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from kernelbenchx.errors import UsageError
from kernelbenchx.evaluator.measure.roofline import PEAKS, Peaks, implausible, target_for
from kernelbenchx.evaluator.parent.rundir import read_results
from kernelbenchx.evaluator.parent.summary import TASK_SETS, best_of, summarize
from kernelbenchx.evaluator.result import Result

BASELINES = ("eager", "eager_fp32", "compile", "solution")  # the speedup denominators a record can carry
P_MAX = 4.0
P_GRID = tuple(i / 100 for i in range(int(P_MAX * 100) + 1))
NOT_SUBMITTED = "not_submitted"
# A task's verdict in a series is its samples' furthest-reaching one (a task with any correct sample is correct).
VERDICT_ORDER = ("correct", "implausible", "incorrect", "unsupported_on_cpu", "runtime_error", "timeout", "crash",
                 "forbidden", "no_triton_kernel", "missing_entry", "compile_error", "input_error", NOT_SUBMITTED)


@dataclass(frozen=True)
class Run:
    path: Path  # the run directory
    name: str
    info: dict  # run.json ({} when absent)
    results: list[Result]


@dataclass(frozen=True)
class Series:
    label: str
    run: Run
    method: str | None
    model: str | None
    results: list[Result]
    summary: dict  # summarize() of these results over the report's task set

    @property
    def timed(self) -> bool:
        return self.summary["timing"] is None


@dataclass(frozen=True)
class PerfPoint:
    """One perf case of one timed record: what the roofline plot places."""

    series: str
    task_id: str
    case: str
    flops: float
    nbytes: float
    unit: str
    tflops: float
    gbs: float
    baseline_tflops: float | None
    baseline_gbs: float | None
    implausible: bool


def load_run(path: str | Path) -> Run:
    """A run directory (or its results.jsonl) with its records; a missing or empty one is a usage error."""
    path = Path(path)
    results_file = path / "results.jsonl" if path.is_dir() else path
    if not results_file.exists():
        raise UsageError(f"no results file at {results_file}", hint="pass the --out folder of a kbx eval run")
    results = read_results(results_file)
    if not results:
        raise UsageError(f"{results_file} holds no intact record", hint="is the run still starting?")
    run_file = results_file.parent / "run.json"
    try:
        info = json.loads(run_file.read_text()) if run_file.exists() else {}
    except (OSError, json.JSONDecodeError):
        info = {}
    name = results_file.parent.name or str(results_file.parent)
    return Run(results_file.parent, name, info, results)


def check_task_set(task_set: str) -> None:
    if task_set not in TASK_SETS:
        raise UsageError(f"unknown task set {task_set!r}", hint=f"use one of {', '.join(TASK_SETS)}")


def run_summaries(paths: list[str | Path] | list[Path], task_set: str = "paper") -> list[tuple[Run, dict]]:
    """Each run with its summary as summary.json holds it (over every record, whatever its method)."""
    check_task_set(task_set)
    runs = [load_run(p) for p in paths]
    return [(run, summarize(run.results, task_set, submitted=[r.task_id for r in run.results if r.task_id],
                            run=run.info)) for run in runs]


def load_series(paths: list[str | Path] | list[Path], task_set: str = "paper") -> list[Series]:
    """The series of one or more runs (see the module docstring), each summarized over the same task set."""
    check_task_set(task_set)
    runs = [load_run(p) for p in paths]
    names = unique_names([r.name for r in runs])
    groups: list[tuple[str, Run, str | None, str | None, list[Result]]] = []
    for run, name in zip(runs, names):
        by_arm: dict[tuple[str | None, str | None], list[Result]] = defaultdict(list)
        for r in run.results:
            by_arm[(r.candidate.method, r.candidate.model)].append(r)
        for (method, model), results in sorted(by_arm.items(), key=lambda item: arm_label(*item[0])):
            label = arm_label(method, model) if len(by_arm) > 1 else name
            if len(by_arm) > 1 and len(runs) > 1:
                label = f"{name} · {label}"
            groups.append((label, run, method, model, results))
    submitted = sorted({r.task_id for g in groups for r in g[4] if r.task_id})
    return [Series(label, run, method, model, results, summarize(results, task_set, submitted, run=run.info))
            for label, run, method, model, results in groups]


def arm_label(method: str | None, model: str | None) -> str:
    parts = [p for p in (method, model) if p]
    return " / ".join(parts) if parts else "(no method)"


def unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = defaultdict(int)
    out = []
    for name in names:
        seen[name] += 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def by_task(results: list[Result]) -> dict[str, list[Result]]:
    grouped: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        if r.task_id:
            grouped[r.task_id].append(r)
    return grouped


def task_verdict(results: list[Result]) -> str:
    """The furthest-reaching verdict among a task's samples (NOT_SUBMITTED without any)."""
    present = {r.verdict.value for r in results}
    return next((v for v in VERDICT_ORDER if v in present), NOT_SUBMITTED)


def best_speedups(series: Series, baseline: str = "eager") -> dict[str, float]:
    """Per task of the set, the best speedup over `baseline` among its correct samples (tasks without one left
    out). For eager this is the summary's own best_speedup."""
    if baseline == "eager":
        rows = series.summary["tasks"]
        return {t: row["best_speedup"] for t, row in rows.items() if row["correct"] and row["best_speedup"]}
    grouped = by_task(series.results)
    out = {}
    for tid in series.summary["tasks"]:
        best = best_of(r.speedup(baseline) for r in grouped.get(tid, []) if r.correct)
        if best:
            out[tid] = best
    return out


def baselines_present(series: list[Series]) -> list[str]:
    found = {b for s in series for r in s.results for b in ((r.stages.get("perf") or {}).get("speedup_geomean")
                                                           or {}) if b in BASELINES}
    return [b for b in BASELINES if b in found]


def fast_p_curve(series: Series, baseline: str = "eager", grid: tuple[float, ...] = P_GRID) -> list[float]:
    """fast_p(p) for each p of the grid: the share of the set's tasks that are correct with a best speedup
    above p (summary.aggregate's definition, on a finer grid and for any baseline)."""
    n = len(series.summary["tasks"])
    speedups = list(best_speedups(series, baseline).values())
    return [sum(1 for s in speedups if s > p) / n if n else 0.0 for p in grid]


def perf_points(series: Series) -> list[PerfPoint]:
    """Every perf case of the series' timed records (correct or implausible) with a cost model."""
    points = []
    for r in series.results:
        perf = r.stages.get("perf") or {}
        if perf.get("status") not in ("measured", "implausible") or not r.task_id:
            continue
        for case in perf.get("cases", []):
            point = perf_point(series.label, r.task_id, case)
            if point is not None:
                points.append(point)
    return points


def perf_point(label: str, task_id: str, case: dict) -> PerfPoint | None:
    cost, mine = case.get("cost") or {}, case.get("candidate") or {}
    if not cost or not mine.get("median_ms"):
        return None
    seconds = mine["median_ms"] * 1e-3
    base_ms = ((case.get("baselines") or {}).get("eager") or {}).get("median_ms")
    roof = case.get("roofline") or {}
    return PerfPoint(label, task_id, str(case.get("name", case.get("case"))), float(cost["flops"]),
                     float(cost["bytes"]), cost.get("unit", "fp32"), cost["flops"] / seconds / 1e12,
                     cost["bytes"] / seconds / 1e9, cost["flops"] / (base_ms * 1e-3) / 1e12 if base_ms else None,
                     cost["bytes"] / (base_ms * 1e-3) / 1e9 if base_ms else None,
                     implausible(roof.get("roofline_fraction")))


def peaks_of(series: list[Series]) -> tuple[str, Peaks] | None:
    """The datasheet peaks of the GPU that timed the series (the first record naming a known GPU)."""
    for s in series:
        for r in s.results:
            env = r.environment or {}
            key = env.get("target") if env.get("target") in PEAKS else target_for(env.get("gpu"))
            if key:
                return key, PEAKS[key]
    return None


def max_roofline_fraction(result: Result) -> float | None:
    fractions = [(c.get("roofline") or {}).get("roofline_fraction") for c in
                 (result.stages.get("perf") or {}).get("cases", [])]
    present = [f for f in fractions if f is not None]
    return max(present) if present else None


def is_timed(result: Result) -> bool:
    return (result.stages.get("perf") or {}).get("status") in ("measured", "implausible")
