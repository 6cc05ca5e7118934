"""Exact tail bounds, combined into statistical tests at false-failure rate ALPHA (union bounds), and the
one-thread wrapper the checks run under."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

ALPHA = 1e-6  # false-failure rate of each statistical test


def one_thread(fn: Callable) -> Callable:
    """Runs `fn` with one intra-op thread in the calling thread. The checks are many small tensor operations,
    which extra threads only slow down on a busy machine (the evaluator judges in its worker threads; with
    OpenMP the setting is the calling thread's own)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        threads = torch.get_num_threads()
        if threads == 1:
            return fn(*args, **kwargs)
        torch.set_num_threads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)
    return wrapper


def on_cpu(fn: Callable) -> Callable:
    """Runs `fn`, which moves its data to the CPU, with the CPU as default device: a GPU judge sets the GPU as
    default (trusted/server.py), and the constants `fn` makes must sit with its data. Only then: a device context
    sends every torch call through Python (__torch_function__), and in the parent, where the CPU is the default
    already, that was 7% of its busy samples in run 72."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if torch.get_default_device().type == "cpu":
            return fn(*args, **kwargs)
        with torch.device("cpu"):
            return fn(*args, **kwargs)
    return wrapper


# ---------------------------------------------------------------------------------------------
# Exact tail bounds, combined into tests at level ALPHA


def kl_tensor(a: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    p = p.clamp(1e-300, 1.0 - 1e-16)
    return torch.xlogy(a, a / p) + torch.xlogy(1.0 - a, (1.0 - a) / (1.0 - p))


@dataclass
class Test:
    """One statistical test made of many exact sub-tests, each with a tail bound P[E ≥ t] ≤ 2e^(−t) under the
    null hypothesis: the test rejects when some sub-test's exponent E exceeds ln(2M/ALPHA), M sub-tests in all,
    so its false-failure rate is at most ALPHA (union bound)."""

    title: str
    parts: list[tuple[torch.Tensor, Callable[[int], str]]] = field(default_factory=list)

    def add(self, exponent: torch.Tensor, describe: Callable[[int], str]) -> None:
        """Sub-tests with exponents `exponent` (any shape; NaN = not run); describe(flat index) → text."""
        self.parts.append((exponent.detach().double().reshape(-1), describe))

    def binomial(self, k: torch.Tensor, n: torch.Tensor, lo: Any, hi: Any, describe: Callable[[int], str]) -> None:
        """Counts k of n trials whose success probability lies in [lo, hi]: exponent n·KL(k/n ‖ [lo, hi])."""
        k, n = k.double(), n.double()
        lo, hi = torch.as_tensor(lo, dtype=torch.float64), torch.as_tensor(hi, dtype=torch.float64)
        a = k / n.clamp_min(1.0)
        nearest = torch.minimum(torch.maximum(a, lo), hi)
        exponent = torch.where(n > 0, n * kl_tensor(a, nearest), torch.full_like(a, float("nan")))
        self.add(exponent, describe)

    def ks(self, values: torch.Tensor, slack: float, describe: str) -> None:
        """DKW: the KS distance of `values` to U[0, 1) beyond the resolution slack, exponent 2n(D − slack)²."""
        n = values.numel()
        if n == 0:
            return
        d = ks_distance(values)
        excess = max(d - slack, 0.0)
        self.add(torch.tensor([2.0 * n * excess * excess]), lambda i: f"{describe}: KS distance {d:.4g} (n={n})")

    def reason(self, path: str) -> str | None:
        exponents = [e for e, _ in self.parts]
        if not exponents:
            return None
        every = torch.cat(exponents)
        m = int((~torch.isnan(every)).sum())
        if m == 0:
            return None
        limit = math.log(2.0 * m / ALPHA)
        worst, where = -1.0, None
        for e, describe in self.parts:
            e = torch.nan_to_num(e, nan=-1.0)
            if e.numel() and float(e.max()) > worst:
                i = int(e.argmax())
                worst, where = float(e[i]), (describe, i)
        if worst <= limit:
            return None
        describe, i = where
        return (f"{path}: {self.title}: {describe(i)} (exponent {worst:.1f} > {limit:.1f}: rejected at "
                f"false-failure rate {ALPHA:g} over {m} sub-tests)")


# From this many values on, the KS distance is read off a histogram of GRID_CELLS cells instead of a sort: at
# 2^27 values (a perf-size Random/rand output) the sort and its rank arithmetic took most of a 65 s battery on
# a busy H200 host (run 50). The grid's value is a lower bound within 1/GRID_CELLS of the exact distance, so the
# test's false-failure rate stays within ALPHA, and it loses power only to deviations narrower than 2^-22, far
# below the 2e-4 the test can see at that n.
GRID_FROM = 1 << 20
GRID_CELLS = 1 << 22


def ks_distance(values: torch.Tensor) -> float:
    """sup |F_n(x) − x| of `values` (in [0, 1)) against U[0, 1): exact below GRID_FROM values, else ks_grid."""
    u = values.double().reshape(-1)
    return ks_exact(u) if u.numel() < GRID_FROM else ks_grid(u)


def ks_exact(u: torch.Tensor) -> float:
    u = u.sort().values
    n = u.numel()
    ranks = torch.arange(1, n + 1, dtype=torch.float64)
    return max(float((ranks / n - u).max()), float((u - (ranks - 1) / n).max()))


def ks_grid(u: torch.Tensor) -> float:
    """max over the cells' right edges b of |F_n(b−) − b|: each is a left limit of |F_n(x) − x|, so at most the
    exact distance, and F_n and x are monotone inside a cell, so the exact distance exceeds it by at most one
    cell's width."""
    cells = (u * GRID_CELLS).floor_().clamp_(0, GRID_CELLS - 1).long()
    below = torch.bincount(cells, minlength=GRID_CELLS).cumsum(0).double() / u.numel()
    edges = torch.arange(1, GRID_CELLS + 1, dtype=torch.float64) / GRID_CELLS
    return float((below - edges).abs().max())
