"""Run-to-run (or method-to-method) comparison: per-task speedup ratios and verdict changes between a
reference series (the first one given) and each other series.

A task's verdict in a series is its samples' furthest-reaching one (data.task_verdict); its speedup is the
best eager speedup among its correct samples (the summary's best_speedup). The ratio other/reference is taken
only where both series have a speedup for the task; its geomean says how much faster the other series' kernels
are on the tasks both solved, which fast_p (a share of all tasks) does not isolate.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from kernelbenchx.evaluator.parent.summary import geomean
from kernelbenchx.report.data import Series, best_speedups, by_task, task_verdict


@dataclass(frozen=True)
class Ratio:
    task_id: str
    reference: float
    other: float

    @property
    def ratio(self) -> float:
        return self.other / self.reference


@dataclass(frozen=True)
class Change:
    task_id: str
    before: str
    after: str


@dataclass(frozen=True)
class Comparison:
    reference: str
    other: str
    ratios: list[Ratio]  # by ratio, largest gain first
    changes: list[Change]  # tasks whose verdict differs, by task id
    same: int  # tasks of the set whose verdict is the same in both

    @property
    def ratio_geomean(self) -> float | None:
        return geomean([r.ratio for r in self.ratios])

    def transitions(self) -> Counter:
        return Counter((c.before, c.after) for c in self.changes)

    def gained(self) -> list[Change]:
        return [c for c in self.changes if c.after == "correct"]

    def lost(self) -> list[Change]:
        return [c for c in self.changes if c.before == "correct"]


def verdicts(series: Series) -> dict[str, str]:
    grouped = by_task(series.results)
    return {tid: task_verdict(grouped.get(tid, [])) for tid in series.summary["tasks"]}


def compare(reference: Series, other: Series) -> Comparison:
    ref_speed, other_speed = best_speedups(reference), best_speedups(other)
    ratios = [Ratio(t, ref_speed[t], other_speed[t]) for t in ref_speed if t in other_speed]
    ratios.sort(key=lambda r: (-math.log(r.ratio), r.task_id))
    before, after = verdicts(reference), verdicts(other)
    tasks = sorted(set(before) | set(after))
    changes = [Change(t, before.get(t, "not_submitted"), after.get(t, "not_submitted")) for t in tasks
               if before.get(t) != after.get(t)]
    return Comparison(reference.label, other.label, ratios, changes, len(tasks) - len(changes))


def comparisons(series: list[Series]) -> list[Comparison]:
    """The first series against each of the others."""
    return [compare(series[0], s) for s in series[1:]]
