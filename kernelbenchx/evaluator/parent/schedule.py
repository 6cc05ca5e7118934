"""Which candidate starts first: the one expected to take longest (longest-processing-time-first).

A run ends when its last candidate does. Started in submission order, the stochastic tasks' host batteries and
the large-output judgements began wherever the submission put them: run 50 (one H200, half the set) waited 63 s
after its other candidates for `Random/rand`, started late and judged for 81 s. Starting the long ones first
lets the short ones fill in around them. The order changes only when a candidate starts: its seeds, inputs and
verdict do not depend on it, and records are appended as candidates finish in either order.

Longest-first fills a run's first wave with the longest correctness stages, so the timing lane starts late: on
a quarter of the set the first timing came 26.5 s after the first guard event against 12.9 s in submission order
(runs 54 and 47). "mixed" keeps the heavy ones early but alternates them with the lightest in the first wave (as
many starts as workers), so that quick candidates reach the lane while the heavy ones compile.

The expected seconds per task are measured work (correctness, timing and judgement seconds of one correct
solution) from kept runs, written by `benchmarks/expected_work.py`; a task missing from the table gets the
table's median. Measured on one GPU kind, they order runs on others too: only the order is used.
"""

from __future__ import annotations

import json
import statistics
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from kernelbenchx.evaluator.parent.submission import Candidate, InputProblem

TABLE = Path(__file__).with_name("expected_work.json")
ORDERS = ("expected", "mixed", "submission")


@lru_cache(maxsize=1)
def expected_seconds() -> dict[str, float]:
    """Task id -> expected seconds of work (empty when the table is missing: then submission order)."""
    try:
        return {task: float(s) for task, s in json.loads(TABLE.read_text())["seconds"].items()}
    except (OSError, ValueError, KeyError):
        return {}


def in_start_order(items: Sequence[Candidate | InputProblem], order: str = "expected", wave: int = 0
                   ) -> list[Candidate | InputProblem]:
    """`items` in the order they should start. "expected": longest expected work first, ties (every sample of
    one task, tasks not in the table) in submission order, input problems first (they take no time); "mixed":
    the same, but the first `wave` starts (the workers) alternate the heaviest and the lightest;
    "submission": as given."""
    if order not in ORDERS:
        raise ValueError(f"unknown start order {order!r}; known: {', '.join(ORDERS)}")
    table = expected_seconds()
    if order == "submission" or not table:
        return list(items)
    typical = statistics.median(table.values())

    def cost(item: Candidate | InputProblem) -> float:
        return table.get(item.task_id, typical) if isinstance(item, Candidate) else float("inf")

    ranked = sorted(items, key=cost, reverse=True)  # sorted() is stable: ties keep submission order
    return mixed_first_wave(ranked, wave) if order == "mixed" else ranked


def mixed_first_wave(ranked: list[Candidate | InputProblem], wave: int) -> list[Candidate | InputProblem]:
    """`ranked` (heaviest first) with its first `wave` candidates taken alternately from the heavy end and the
    light end (lightest first); the rest follow heaviest first. Input problems stay in front."""
    problems = [i for i in ranked if not isinstance(i, Candidate)]
    rest = [i for i in ranked if isinstance(i, Candidate)]
    light = wave // 2
    if light == 0 or len(rest) <= wave:  # everything starts at once anyway
        return ranked
    heavy, lightest = rest[:len(rest) - light], rest[len(rest) - light:][::-1]
    first = [item for pair in zip(heavy, lightest) for item in pair] + heavy[light:wave - light]
    return problems + first + heavy[wave - light:]
