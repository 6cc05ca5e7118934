"""Aggregates over result records: rates, pass@1, fast_p and speedup geomeans, overall and per category.

Denominators are the tasks of the chosen set, not the candidates: a task nobody submitted counts as failed.
With several samples per task, a task is compiled/correct when any sample is, pass@k is the unbiased
estimator 1 − C(n−c, k)/C(n, k) per task (with k capped at the task's n samples), averaged over the set, and
fast_p uses the task's best correct sample.
"""

from __future__ import annotations

import json
import math
from math import comb
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from kernelbenchx.dataset.registry import all_tasks, tasks_in

FAST_P = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
PASS_AT = (1, 5, 10)


def read_results(path: Path) -> list[dict]:
    """Records of results.jsonl; a torn last line (crash mid-write) is ignored, and later records of the
    same key win."""
    records: dict[str, dict] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        records[record["key"]] = record
    return list(records.values())


def task_ids(task_set: str, submitted: Iterable[str]) -> list[str]:
    if task_set == "paper":
        return [t.id for t in tasks_in(paper_only=True)]
    if task_set == "all":
        return list(all_tasks())
    if task_set == "submitted":
        return sorted(set(submitted))
    raise ValueError(f"unknown task set {task_set!r}: use paper, all or submitted")


def speedup_of(record: dict, baseline: str = "eager") -> float | None:
    perf = record.get("stages", {}).get("perf", {})
    return (perf.get("speedup_geomean") or {}).get(baseline)


def summarize(records: list[dict], task_set: str = "paper", submitted: Iterable[str] = ()) -> dict:
    ids = task_ids(task_set, submitted)
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r["candidate"].get("task_id"):
            by_task[r["candidate"]["task_id"]].append(r)
    rows = {tid: task_row(by_task.get(tid, [])) for tid in ids}
    categories: dict[str, list[str]] = defaultdict(list)
    for tid in ids:
        categories[tid.split("/")[0]].append(tid)
    verdicts: dict[str, int] = defaultdict(int)
    for r in records:
        verdicts[r["verdict"]] += 1
    return {
        "kbx_summary": 1,
        "task_set": task_set,
        "candidates": len(records),
        "verdicts": dict(sorted(verdicts.items())),
        "overall": aggregate([rows[t] for t in ids]),
        "categories": {c: aggregate([rows[t] for t in tids]) for c, tids in sorted(categories.items())},
        "tasks": rows,
    }


def task_row(records: list[dict]) -> dict:
    n = len(records)
    correct = [r for r in records if r["verdict"] == "correct"]
    speedups = [s for s in (speedup_of(r) for r in correct) if s is not None]
    return {"samples": n, "compiled": any(r.get("stages", {}).get("compile", {}).get("import", {}).get("ok")
                                          for r in records),
            "correct": bool(correct), "pass_at_1": len(correct) / n if n else 0.0,
            "pass_at": {str(k): pass_at_k(n, len(correct), k) for k in PASS_AT},
            "best_speedup": max(speedups) if speedups else None,
            "measured": bool(speedups)}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from the n is correct (k capped at n)."""
    if n == 0:
        return 0.0
    k = min(k, n)
    return 1.0 - comb(n - c, k) / comb(n, k)


def aggregate(rows: list[dict]) -> dict:
    n = len(rows)
    if n == 0:
        return {"tasks": 0}
    measured = any(r["measured"] for r in rows)
    speedups = [r["best_speedup"] for r in rows if r["best_speedup"]]
    return {
        "tasks": n,
        "submitted": sum(r["samples"] > 0 for r in rows),
        "compile_rate": sum(r["compiled"] for r in rows) / n,
        "correct_rate": sum(r["correct"] for r in rows) / n,
        "pass_at_1": sum(r["pass_at_1"] for r in rows) / n,
        "pass_at": {str(k): sum(r["pass_at"][str(k)] for r in rows) / n for k in PASS_AT},
        "fast_p": {f"{p:g}": (sum(1 for r in rows if r["correct"] and (r["best_speedup"] or 0) > p) / n
                              if measured or p == 0 else None) for p in FAST_P},
        "speedup_geomean": math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else None,
    }


def format_table(summary: dict) -> str:
    def pct(x: float | None) -> str:
        return "   -  " if x is None else f"{100 * x:5.1f}%"

    lines = [f"{'category':<16}{'tasks':>6}{'sub':>5}{'compile':>9}{'correct':>9}{'pass@1':>9}"
             f"{'fast_1':>9}{'geomean':>9}"]
    rows = list(summary["categories"].items()) + [("ALL", summary["overall"])]
    for name, agg in rows:
        if not agg.get("tasks"):
            continue
        geo = agg["speedup_geomean"]
        lines.append(f"{name:<16}{agg['tasks']:>6}{agg['submitted']:>5}{pct(agg['compile_rate']):>9}"
                     f"{pct(agg['correct_rate']):>9}{pct(agg['pass_at_1']):>9}{pct(agg['fast_p']['1']):>9}"
                     f"{(f'{geo:.2f}x' if geo else '-'):>9}")
    verdicts = ", ".join(f"{k} {v}" for k, v in summary["verdicts"].items())
    lines.append(f"\n{summary['candidates']} candidates over the '{summary['task_set']}' set: {verdicts}")
    return "\n".join(lines)
