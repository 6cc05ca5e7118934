"""Category × method analysis: in which categories each method (or model, or run) does better or worse than
its overall strength predicts.

The data are, for each series m (a method/model of a run; see data.py) and category c, the number of the
category's tasks n_c in the task set and the number k_mc the series solved (a task counts once, solved when any
sample is correct, as in the summary; with timing the same analysis runs on fast_1: correct and faster than
eager). Raw rate differences mislead here: Fusion is hard for every method, and a strong method wins every
category. So the expected count e_mc comes from the additive logit model

    logit P(solved | m, c) = a_m + b_c

(each series' overall strength plus each category's difficulty, no interaction), fitted by maximum likelihood.
It is the log-linear model of the series × category × outcome table without the three-way term, so iterative
proportional fitting of the three two-way margins gives the fit (and copes with empty cells, where Newton
steps on the logit scale diverge). Each cell's signed deviance residual

    d_mc = sign(k − e) · sqrt(2 [k ln(k/e) + (n − k) ln((n − k)/(n − e))])

says how far the series departs from the model in that category, in units that account for the binomial
spread (a 2-task category cannot weigh like a 60-task one). A series *wins* a category where d_mc ≥ 2 and
*loses* it where d_mc ≤ −2 (roughly the two-sided 5% level for one cell). The sum of the squared residuals is
the likelihood-ratio statistic G² of the interaction: under "no series is specifically better at any
category" it is approximately chi-square with (M − 1)(C − 1) degrees of freedom, the number reported beside
it. With few tasks per cell the chi-square approximation is rough; read the residuals as a ranking, not a test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernelbenchx.report.data import Series

THRESHOLD = 2.0
OUTCOMES = {"correct": "correct", "fast_1": "correct and faster than eager (fast_1)"}


@dataclass(frozen=True)
class Cell:
    series: str
    category: str
    tasks: int
    solved: int
    expected: float
    residual: float


@dataclass(frozen=True)
class Analysis:
    outcome: str  # a key of OUTCOMES
    series: list[str]
    categories: list[str]
    cells: list[Cell]  # series-major
    g2: float
    df: int

    def cell(self, series: str, category: str) -> Cell:
        return next(c for c in self.cells if c.series == series and c.category == category)

    def wins(self, series: str) -> list[Cell]:
        return sorted((c for c in self.cells if c.series == series and c.residual >= THRESHOLD),
                      key=lambda c: -c.residual)

    def losses(self, series: str) -> list[Cell]:
        return sorted((c for c in self.cells if c.series == series and c.residual <= -THRESHOLD),
                      key=lambda c: c.residual)

    def matrix(self) -> np.ndarray:
        return np.array([[self.cell(s, c).residual for c in self.categories] for s in self.series])


def solved(row: dict, outcome: str) -> bool:
    if outcome == "correct":
        return bool(row["correct"])
    return bool(row["correct"]) and (row["best_speedup"] or 0.0) > 1.0


def counts(series: list[Series], outcome: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Categories, tasks n[m, c] and solved k[m, c] from each series' summary rows."""
    categories = sorted({tid.split("/")[0] for s in series for tid in s.summary["tasks"]})
    n = np.zeros((len(series), len(categories)))
    k = np.zeros_like(n)
    for i, s in enumerate(series):
        for tid, row in s.summary["tasks"].items():
            j = categories.index(tid.split("/")[0])
            n[i, j] += 1
            k[i, j] += solved(row, outcome)
    return categories, n, k


def fit_additive_logit(n: np.ndarray, k: np.ndarray, iterations: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """Expected solved counts under logit p = a_m + b_c, by iterative proportional fitting of the series ×
    category × outcome table to its three two-way margins."""
    table = np.stack([k, n - k], axis=2)
    fit = np.ones_like(table)
    mc, mo, co = table.sum(axis=2), table.sum(axis=1), table.sum(axis=0)
    for _ in range(iterations):
        before = fit.copy()
        fit *= ratio(mc, fit.sum(axis=2))[:, :, None]
        fit *= ratio(mo, fit.sum(axis=1))[:, None, :]
        fit *= ratio(co, fit.sum(axis=0))[None, :, :]
        if np.max(np.abs(fit - before)) < tol:
            break
    return fit[:, :, 0]


def ratio(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    return np.divide(target, current, out=np.zeros_like(target, dtype=float), where=current > 0)


def deviance_residual(n: float, k: float, e: float) -> float:
    def term(obs: float, exp: float) -> float:
        return obs * math.log(obs / exp) if obs > 0 else 0.0

    if n == 0:
        return 0.0
    e = min(max(e, 1e-12), n - 1e-12)  # an expected count at 0 or n only arises where k is too
    squared = 2 * (term(k, e) + term(n - k, n - e))
    return math.copysign(math.sqrt(max(squared, 0.0)), k - e)


def category_by_method(series: list[Series], outcome: str = "correct") -> Analysis | None:
    """The analysis over the given series (None with fewer than two series or two categories)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r}: use {', '.join(OUTCOMES)}")
    categories, n, k = counts(series, outcome)
    if len(series) < 2 or len(categories) < 2:
        return None
    expected = fit_additive_logit(n, k)
    cells = [Cell(s.label, c, int(n[i, j]), int(k[i, j]), float(expected[i, j]),
                  deviance_residual(n[i, j], k[i, j], expected[i, j]))
             for i, s in enumerate(series) for j, c in enumerate(categories)]
    g2 = sum(c.residual ** 2 for c in cells)
    return Analysis(outcome, [s.label for s in series], categories, cells, g2,
                    (len(series) - 1) * (len(categories) - 1))
