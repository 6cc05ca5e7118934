"""Aggregates over results: rates, pass@k, fast_p and speedup geomeans, overall and per category.

Denominators are the tasks of the chosen set, not the candidates: a task nobody submitted counts as failed.
With several samples per task, a task is compiled/correct when any sample is, pass@k is the unbiased
estimator 1 − C(n−c, k)/C(n, k) per task (with k capped at the task's n samples), averaged over the set, and
fast_p uses the task's best correct sample. Verdicts that are neither pass nor failure (unsupported_on_cpu)
are counted apart: such a task is not compiled-and-failed, it is undecided. Without timing (the CPU path)
every fast_p and geomean is null, with the reason.
"""

from __future__ import annotations

import math
from collections import defaultdict
from math import comb
from typing import Iterable

from kernelbenchx.dataset.registry import all_tasks, tasks_in

from kernelbenchx.evaluator.result import Result

FAST_P = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
PASS_AT = (1, 5, 10)
TASK_SETS = ("paper", "all", "faithful", "submitted")
SUMMARY_FORMAT = 2


def task_ids(task_set: str, submitted: Iterable[str]) -> list[str]:
    if task_set == "paper":
        return [t.id for t in tasks_in(paper_only=True)]
    if task_set == "all":
        return list(all_tasks())
    if task_set == "faithful":
        return [t.id for t in all_tasks().values() if t.faithful]
    if task_set == "submitted":
        return sorted(set(submitted))
    raise ValueError(f"unknown task set {task_set!r}: use {', '.join(TASK_SETS)}")


def summarize(results: list[Result], task_set: str = "paper", submitted: Iterable[str] = (),
              run: dict | None = None) -> dict:
    ids = task_ids(task_set, submitted)
    by_task: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        if r.task_id:
            by_task[r.task_id].append(r)
    rows = {tid: task_row(by_task.get(tid, [])) for tid in ids}
    timed = any(r.stages.get("perf", {}).get("status") in ("measured", "implausible") for r in results)
    categories: dict[str, list[str]] = defaultdict(list)
    for tid in ids:
        categories[tid.split("/")[0]].append(tid)
    verdicts: dict[str, int] = defaultdict(int)
    for r in results:
        verdicts[r.verdict.value] += 1
    environment = results[0].environment if results else {}
    return {
        "kbx_summary": SUMMARY_FORMAT,
        "task_set": task_set,
        "run": {**(run or {}), "environment": {k: v for k, v in environment.items() if k != "seed"}},
        "candidates": len(results),
        "verdicts": dict(sorted(verdicts.items())),
        "timing": None if timed else "not measured: no GPU timed these candidates (the CPU path runs kernels "
                                     "under the Triton interpreter), so fast_p and speedups are null",
        "overall": aggregate([rows[t] for t in ids], timed),
        "categories": {c: aggregate([rows[t] for t in tids], timed) for c, tids in sorted(categories.items())},
        "tasks": rows,
    }


def task_row(results: list[Result]) -> dict:
    n = len(results)
    correct = [r for r in results if r.correct]
    undecided = [r for r in results if r.verdict.undecided]
    decided = n - len(undecided)
    speedups = [s for s in (r.speedup() for r in correct) if s is not None]
    return {"samples": n, "undecided": len(undecided),
            "compiled": any(r.stages.get("compile", {}).get("import", {}).get("ok") for r in results),
            "correct": bool(correct), "pass_at_1": len(correct) / decided if decided else 0.0,
            "pass_at": {str(k): pass_at_k(decided, len(correct), k) for k in PASS_AT},
            "best_speedup": max(speedups) if speedups else None,
            "speedup_vs_solution": best_of(r.speedup("solution") for r in correct),
            "measured": bool(speedups)}


def best_of(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from the n is correct (k capped at n)."""
    if n == 0:
        return 0.0
    k = min(k, n)
    return 1.0 - comb(n - c, k) / comb(n, k)


def aggregate(rows: list[dict], timed: bool) -> dict:
    n = len(rows)
    if n == 0:
        return {"tasks": 0}
    undecided = sum(1 for r in rows if r["samples"] and r["undecided"] == r["samples"])
    speedups = [r["best_speedup"] for r in rows if r["best_speedup"]]
    vs_solution = [r["speedup_vs_solution"] for r in rows if r["speedup_vs_solution"]]
    return {
        "tasks": n,
        "submitted": sum(r["samples"] > 0 for r in rows),
        "undecided": undecided,
        "compile_rate": sum(r["compiled"] for r in rows) / n,
        "correct_rate": sum(r["correct"] for r in rows) / n,
        "pass_at_1": sum(r["pass_at_1"] for r in rows) / n,
        "pass_at": {str(k): sum(r["pass_at"][str(k)] for r in rows) / n for k in PASS_AT},
        "fast_p": {f"{p:g}": (sum(1 for r in rows if r["correct"] and (r["best_speedup"] or 0) > p) / n
                              if timed else None) for p in FAST_P},
        "speedup_geomean": geomean(speedups) if timed else None,
        "speedup_vs_solution_geomean": geomean(vs_solution) if timed else None,
    }


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(s) for s in values) / len(values)) if values else None


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def format_table(summary: dict) -> str:
    def pct(x: float | None) -> str:
        return "   -  " if x is None else f"{100 * x:5.1f}%"

    lines = [f"{'category':<16}{'tasks':>6}{'sub':>5}{'undec':>6}{'compile':>9}{'correct':>9}{'pass@1':>9}"
             f"{'fast_1':>9}{'geomean':>9}"]
    rows = list(summary["categories"].items()) + [("ALL", summary["overall"])]
    for name, agg in rows:
        if not agg.get("tasks"):
            continue
        geo = agg["speedup_geomean"]
        lines.append(f"{name:<16}{agg['tasks']:>6}{agg['submitted']:>5}{agg['undecided']:>6}"
                     f"{pct(agg['compile_rate']):>9}{pct(agg['correct_rate']):>9}{pct(agg['pass_at_1']):>9}"
                     f"{pct(agg['fast_p']['1']):>9}{(f'{geo:.2f}x' if geo else '-'):>9}")
    verdicts = ", ".join(f"{k} {v}" for k, v in summary["verdicts"].items())
    lines.append(f"\n{plural(summary['candidates'], 'candidate')} over the '{summary['task_set']}' set: "
                 f"{verdicts or 'none'}")
    lines.append("(sub: tasks with a candidate; undec: tasks whose candidates the CPU interpreter cannot run)")
    if summary.get("timing"):
        lines.append(f"timing {summary['timing']}")
    return "\n".join(lines)


