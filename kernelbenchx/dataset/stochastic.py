"""Checks for the stochastic tasks (dropout, uniform and binomial samples) at a stated false-failure rate.

A kernel cannot reproduce torch's random stream, so these tasks state what a correct output satisfies instead:
dropout outputs are, element by element, either the dropped or the kept value, and the drops must look like
independent Bernoulli(p) draws; uniform samples must look like independent U[0, 1) draws. "Look like" is a
battery of tests aimed at the generators a kernel can get wrong, or write to game a single distribution test:

- a low-discrepancy sequence (u_i = frac(i·φ), van der Corput) has a perfect histogram: the block-balance test
  (counts inside blocks of 16 consecutive values are *too* even) and the serial-pair test (consecutive pairs
  fall on a few lines of the unit square) reject it;
- a mask or stream that repeats across batch elements, rows, or every few blocks: the serial-pair test at
  shifts 1…8 and m·2^j along every dimension and along the flat order, and the repeat test (every pair of rows,
  of hyperplanes along every dimension, and of flat chunks is compared: agreement must be that of independent
  draws) reject it;
- a generator that ignores its seed or keys on a few bits of it: calls with the same inputs and different seeds
  (the tasks' seed-family cases: seed, seed + 1, seed ^ 2^40, seed + 2^33 and a random 62-bit seed) must give
  independent streams (cross-seed test; see `remember`).

Every statistical test is a union (Bonferroni) of exact tail bounds at total level ALPHA: two-sided Chernoff
bounds for binomial counts (P[n·KL(k/n ‖ p) > t] ≤ 2e^(−t)), Dvoretzky–Kiefer–Wolfowitz–Massart for
Kolmogorov–Smirnov distances (P[√n·D > x] ≤ 2e^(−2x²)); they hold at every sample size. Counts are taken over
disjoint pairs or blocks, so their terms are independent under the null hypothesis. Event probabilities are
widened by the generator's resolution (`SLACK`), so a correct kernel whose draws are quantized (to 16 bits for
dropout thresholds, to the output dtype for uniforms) keeps the stated rate.

Cross-seed comparisons need the outputs of several cases; a task's check sees one case at a time, so the check
keeps the streams of recent small cases in a per-thread memo keyed by the inputs without the seed (`remember`).
The evaluator judges one candidate's cases in order in one thread, and the first member of a seed family
(a seed the memo has already seen for those inputs) starts the family afresh, so one candidate is never
compared with another. The evaluator should eventually call the cross-seed test itself, over reseeded calls of
one case; `family_seeds` and `cross_reason` are the pieces it needs.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Tolerance, first_index

ALPHA = 1e-6  # false-failure rate of each statistical test
BLOCK = 16  # values per block in the block-balance test
MAX_PAIRS = 1 << 15  # pairs counted per distance and axis in the serial-pair tests (the first ones)
MAX_ROWS = 256  # rows compared pairwise in one view of the repeat test (spread over the view)
MAX_COLS = 512  # positions compared per row pair (spread over the row)
MEMO_ELEMENTS = 1 << 18  # streams larger than this are not remembered for cross-seed tests
MEMO_KEYS = 8  # input fingerprints remembered per thread
MASK_SLACK = 2.0 ** -16  # a dropout threshold may be quantized to 16 bits: P(drop) within p ± 2^-16

MASK_TESTS = 5  # statistical tests per dropout output: drop count, block balance, serial pairs, repeats, cross-seed
UNIFORM_TESTS = 7  # KS, block balance, serial pairs, differences, equal values, repeats, cross-seed


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


# ---------------------------------------------------------------------------------------------
# References


def mixed_seed(seed: int) -> int:
    """A 64-bit hash (splitmix64's finalizer) of `seed` in which every bit of the seed moves every bit.

    torch's CPU generator keys on the low 32 bits of its seed only (seeds 5 and 5 + 2^40 give the same stream),
    which is exactly the weakness the cross-seed test rejects: references seed torch with the hash instead."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def generator(seed: int, device: torch.device | str = "cpu") -> torch.Generator:
    """A torch generator on `device` seeded from all 64 bits of `seed`."""
    return torch.Generator(device=device).manual_seed(mixed_seed(seed))


def seeded_dropout(input: torch.Tensor, p: float, training: bool, seed: int, inplace: bool = False) -> torch.Tensor:
    """torch's dropout, its mask drawn from torch's generator seeded from `seed`; global RNG state is restored."""
    cuda = input.device.type == "cuda"
    with torch.random.fork_rng(devices=[input.device] if cuda else []):
        if cuda:
            with torch.cuda.device(input.device):
                torch.cuda.manual_seed(mixed_seed(seed))
        else:
            torch.default_generator.manual_seed(mixed_seed(seed))
        return F.dropout(input, p, training, inplace)


def bind(fn, call) -> dict:
    """The call's arguments by parameter name of `fn`, defaults filled in."""
    bound = inspect.signature(fn).bind(*call.args, **call.kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def stochastic(p: float, training: bool) -> bool:
    """Whether dropout draws a mask (otherwise it is the identity, or all zeros for p = 1)."""
    return bool(training) and 0.0 < p < 1.0


DROPOUT_CONTRACT = (
    "Dropout cannot match torch's random stream, so it is judged by its law. Every output element must equal, "
    "within the tolerance, either its value when dropped or its value when kept (pre-dropout value × 1/(1−p)), "
    "both recomputed deterministically from the inputs. Among elements whose two values are distinguishable, "
    "the drops must look like independent Bernoulli(p) draws: the drop count; block balance (drop counts inside "
    "blocks of 16 consecutive elements follow Binomial(16, p): a low-discrepancy mask is too even); serial pairs "
    "(elements at distances 1…8 and m·2^j along every dimension and the flat order are independent); repeats "
    "(no two rows, batch elements, hyperplanes along any dimension or flat chunks agree more or less often than "
    "independent masks do: a mask that repeats every few blocks fails); and cross-seed independence (calls with "
    "the same inputs and seeds such as seed + 1, seed ^ 2^40, seed + 2^33 or another 62-bit seed must give "
    "independent masks: a generator keyed on a few bits of the seed fails). Each test is a union of exact "
    f"Chernoff bounds at false-failure rate {ALPHA:g} (at most {MASK_TESTS} tests per case, so at most "
    f"{MASK_TESTS * ALPHA:g} per case). Draw the mask from all 64 bits of the `seed` argument with a counter-based "
    "generator and one counter per element (e.g. tl.rand(seed, offsets) with distinct offsets for every output "
    "element): the same seed and inputs must give bitwise the same output. With training=False or p = 0 dropout "
    "is the identity and with p = 1 it zeroes everything; those cases are compared elementwise."
)


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


def ks_distance(values: torch.Tensor) -> float:
    u = values.double().reshape(-1).sort().values
    n = u.numel()
    ranks = torch.arange(1, n + 1, dtype=torch.float64)
    return max(float((ranks / n - u).max()), float((u - (ranks - 1) / n).max()))


# ---------------------------------------------------------------------------------------------
# Streams: categorical draws with known probabilities, on the output's shape


@dataclass
class Stream:
    """Draws laid out on the output's shape: `cat` in 0…C−1 with probabilities `probs` (± `slack`) where
    `known`; binary `planes` (indicator, probability) for the repeat test; `half` is plane 0. For uniforms also
    the values themselves (`values`) and the output dtype (for the resolution of equal values)."""

    cat: torch.Tensor
    known: torch.Tensor
    probs: tuple[float, ...]
    planes: list[tuple[torch.Tensor, float]]
    slack: float
    values: torch.Tensor | None = None
    dtype: torch.dtype | None = None

    @property
    def shape(self) -> torch.Size:
        return self.cat.shape


def mask_stream(dropped: torch.Tensor, known: torch.Tensor, p: float) -> Stream:
    return Stream(dropped.long(), known.bool(), (1.0 - p, p), [(dropped.bool(), p)], MASK_SLACK)


CELLS = 8  # uniforms are binned into 8 cells of [0, 1) by their top three bits


def uniform_stream(values: torch.Tensor, known: torch.Tensor | None = None, dtype: torch.dtype | None = None,
                   slack: float | None = None) -> Stream:
    x = values.detach().double()
    known = torch.ones_like(x, dtype=torch.bool) if known is None else known.bool()
    scaled = (x.clamp(0.0, 1.0 - 2.0 ** -53) * CELLS).floor().long()
    planes = [(((x * 2.0 ** b).floor().long() % 2) == 1, 0.5) for b in (1, 2, 3)]
    if slack is None:
        slack = SLACK.get(dtype, 2.0 ** -23)
    return Stream(scaled, known, (1.0 / CELLS,) * CELLS, planes, slack, x, dtype)


# Resolution of a uniform's distribution: a correct kernel's probability of any dyadic cell, and its CDF, may be
# off by this much (rounding to the output dtype moves half an ulp of mass across a boundary).
SLACK = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -23,
         torch.float64: 2.0 ** -32}


def shifts(length: int) -> list[int]:
    """Distances tested along an axis of `length`: 1…8 and 2^j, 3·2^j (plus 5·2^j and 7·2^j up to 2^6), below
    `length`. Repeats at other distances are the repeat test's."""
    out = set(range(1, 9))
    j = 1
    while (1 << j) < length:
        out |= {m << j for m in ((1, 3, 5, 7) if j <= 6 else (1, 3))}
        j += 1
    return sorted(s for s in out if s < length)


def axes(shape: torch.Size) -> list[tuple[str, Callable[[torch.Tensor], torch.Tensor]]]:
    """Views of a tensor as (rows, length) with the tested axis last: every dimension of size ≥ 2, and the flat
    order (for tensors of two or more dimensions)."""
    views = []
    for d, size in enumerate(shape):
        if size >= 2:
            views.append((f"dim {d}", lambda t, d=d: t.movedim(d, -1).reshape(-1, t.shape[d])))
    if len(shape) != 1 or not views:
        views.append(("flat order", lambda t: t.reshape(1, -1)))
    return views


def pairs_at(t: torch.Tensor, k: int, limit: int = MAX_PAIRS) -> tuple[torch.Tensor, torch.Tensor]:
    """Disjoint pairs (t[:, i], t[:, i + k]) of a (rows, length) tensor: i in the first half of each period 2k;
    about `limit` pairs at most (from the first rows and the start of each row)."""
    rows, length = t.shape
    per_row = length // (2 * k) * k if 2 * k <= length else length - k
    rows = min(rows, max(1, -(-limit // max(per_row, 1))))
    cap = -(-limit // rows)  # pairs per row
    t = t[:rows]
    if 2 * k <= length:
        periods = min(length // (2 * k), -(-cap // k))
        v = t[:, :periods * 2 * k].reshape(rows, periods, 2, k)
        return v[:, :, 0, :].reshape(-1), v[:, :, 1, :].reshape(-1)
    m = min(length - k, cap)
    return t[:, :m].reshape(-1), t[:, k:k + m].reshape(-1)


def coded(stream: Stream) -> torch.Tensor:
    """Categories with unknown draws as category C."""
    return torch.where(stream.known, stream.cat, torch.full_like(stream.cat, len(stream.probs)))


def joint_counts(a: torch.Tensor, b: torch.Tensor, c: int) -> torch.Tensor:
    """Counts of (a, b) over pairs where both are known (codes < c), as a c×c table."""
    both = (a < c) & (b < c)
    return torch.bincount(a[both] * c + b[both], minlength=c * c).reshape(c, c)


def cell_bounds(probs: tuple[float, ...], slack: float) -> tuple[torch.Tensor, torch.Tensor]:
    p = torch.tensor(probs, dtype=torch.float64)
    lo, hi = (p - slack).clamp(0.0, 1.0), (p + slack).clamp(0.0, 1.0)
    return torch.outer(lo, lo).reshape(-1), torch.outer(hi, hi).clamp(max=1.0).reshape(-1)


def marginal_test(stream: Stream) -> Test:
    test = Test("drop count" if len(stream.probs) == 2 else "category counts")
    c = len(stream.probs)
    counts = torch.bincount(stream.cat[stream.known].reshape(-1), minlength=c)
    n = counts.sum()
    p = torch.tensor(stream.probs, dtype=torch.float64)
    test.binomial(counts, n.expand(c), p - stream.slack, p + stream.slack,
                  lambda i: f"{int(counts[i])} of {int(n)} in category {i} ({float(counts[i]) / max(int(n), 1):.4f}), "
                            f"expected a fraction {stream.probs[i]:.4f}")
    return test


def block_test(stream: Stream) -> Test:
    """Counts of plane 0 inside blocks of BLOCK consecutive known draws (flat order) follow Binomial(BLOCK, p);
    the number of blocks with each count is binomial."""
    test = Test(f"block balance (blocks of {BLOCK} consecutive draws)")
    plane, p = stream.planes[0]
    bits = plane[stream.known].reshape(-1)
    blocks = bits.numel() // BLOCK
    if blocks == 0:
        return test
    per_block = bits[:blocks * BLOCK].reshape(blocks, BLOCK).sum(1)
    hist = torch.bincount(per_block, minlength=BLOCK + 1)
    j = torch.arange(BLOCK + 1, dtype=torch.float64)
    comb = torch.lgamma(torch.tensor(BLOCK + 1.0)) - torch.lgamma(j + 1) - torch.lgamma(BLOCK - j + 1)
    grid = [min(max(p + s * stream.slack, 1e-12), 1 - 1e-12) for s in (-1.0, 0.0, 1.0)]
    pmfs = torch.stack([(comb + j * math.log(q) + (BLOCK - j) * math.log1p(-q)).exp() for q in grid])
    lo, hi = pmfs.min(0).values, pmfs.max(0).values
    test.binomial(hist, torch.full_like(hist, blocks), lo, hi,
                  lambda i: f"{int(hist[i])} of {blocks} blocks hold exactly {i} (expected a fraction "
                            f"{float(pmfs[1, i]):.4f})")
    return test


DIFF_BINS = 64  # the differences (b − a) mod 1 of uniform pairs are binned into 64 cells


class PairCounts:
    """Counts over the pairs (a, b) of one distance: joint categories of known pairs (C×C cells) and, for
    uniforms, the differences (b − a) mod 1 (DIFF_BINS cells) and the number of equal values; gathered over
    many distances, then judged together."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.c = len(stream.probs)
        self.labels: list[str] = []
        self.tables: list[torch.Tensor] = []
        self.diffs: list[torch.Tensor] = []
        self.equal: list[int] = []

    def add(self, label: str, a: torch.Tensor, b: torch.Tensor, va: torch.Tensor | None,
            vb: torch.Tensor | None) -> None:
        c = self.c
        table = torch.bincount(a * (c + 1) + b, minlength=(c + 1) ** 2).reshape(c + 1, c + 1)[:c, :c].reshape(-1)
        if int(table.sum()) == 0:
            return
        self.labels.append(label)
        self.tables.append(table)
        if va is not None:
            if int(table.sum()) != a.numel():
                both = (a < c) & (b < c)
                va, vb = va[both], vb[both]
            d = (torch.remainder(vb - va, 1.0) * DIFF_BINS).floor().long().clamp(0, DIFF_BINS - 1)
            self.diffs.append(torch.bincount(d, minlength=DIFF_BINS))
            self.equal.append(int((va == vb).sum()))

    def tests(self, serial: Test, diffs: Test | None, equal: Test | None) -> None:
        if not self.tables:
            return
        c, stream, labels = self.c, self.stream, self.labels
        tables = torch.stack(self.tables)
        n = tables.sum(1, keepdim=True).expand_as(tables)
        lo, hi = cell_bounds(stream.probs, stream.slack)
        serial.binomial(tables, n, lo, hi,
                        lambda i: f"{labels[i // (c * c)]}: {int(tables.reshape(-1)[i])} of {int(n.reshape(-1)[i])} "
                                  f"pairs in cell ({i % (c * c) // c}, {i % c}), expected a fraction "
                                  f"{stream.probs[i % (c * c) // c] * stream.probs[i % c]:.4g}")
        if diffs is not None and self.diffs:
            hist = torch.stack(self.diffs)
            m = hist.sum(1, keepdim=True).expand_as(hist)
            width = 4.0 * stream.slack
            diffs.binomial(hist, m, 1.0 / DIFF_BINS - width, 1.0 / DIFF_BINS + width,
                           lambda i: f"{labels[i // DIFF_BINS]}: {int(hist.reshape(-1)[i])} of "
                                     f"{int(m.reshape(-1)[i])} differences in [{i % DIFF_BINS}/{DIFF_BINS}, "
                                     f"{i % DIFF_BINS + 1}/{DIFF_BINS})")
        collision = COLLISION.get(stream.dtype)
        if equal is not None and self.equal and collision is not None:
            same = torch.tensor(self.equal)
            total = tables.sum(1)
            equal.binomial(same, total, 0.0, collision,
                           lambda i: f"{labels[i]}: {int(same[i])} of {int(total[i])} pairs are equal")


def pair_tests(stream: Stream) -> list[Test]:
    """Serial pairs: at each tested distance along each axis, the joint categories of disjoint pairs are
    independent draws (cells of the C×C table are binomial); for uniforms also the differences (b − a) mod 1
    are uniform and equal values are no more frequent than independent draws allow."""
    serial = Test("serial pairs (independence of draws at a distance)")
    diffs = Test("differences (b − a) mod 1 of draws at a distance")
    equal = Test("equal values at a distance (the stream repeats)")
    counts = PairCounts(stream)
    codes = coded(stream)
    for name, view in axes(stream.shape):
        cv = view(codes)
        vv = view(stream.values) if stream.values is not None else None
        for k in shifts(cv.shape[1]):
            a, b = pairs_at(cv, k)
            va, vb = pairs_at(vv, k) if vv is not None else (None, None)
            counts.add(f"along {name} at distance {k}", a, b, va, vb)
    if stream.values is None:
        counts.tests(serial, None, None)
        return [serial]
    counts.tests(serial, diffs, equal)
    return [serial, diffs, equal]


def repeat_test(stream: Stream) -> Test:
    """Every pair of rows of every view (hyperplanes along each dimension, flat chunks) agrees on each binary
    plane as often as independent draws do: Binomial(n, p² + (1−p)²) over positions known in both."""
    test = Test("repeats (two rows, batch elements or blocks agree too often or too rarely)")
    n_total = stream.cat.numel()
    views = []
    for d, size in enumerate(stream.shape):
        rest = n_total // max(size, 1)
        if size >= 2 and rest >= 8 and stream.cat.dim() >= 2:
            views.append((f"slices along dim {d}", lambda t, d=d: t.movedim(d, 0).reshape(t.shape[d], -1)))
    chunk = 64
    while n_total // chunk > 4 * MAX_ROWS:
        chunk *= 2
    if n_total // chunk >= 2:
        views.append((f"flat chunks of {chunk}",
                      lambda t, chunk=chunk: t.reshape(-1)[:n_total // chunk * chunk].reshape(-1, chunk)))
    for name, view in views:
        known = view(stream.known)
        rows, cols = spread(known.shape[0], MAX_ROWS), spread(known.shape[1], MAX_COLS)
        k = known[rows][:, cols].float()  # float32 counts are exact up to 2^24
        both = (k @ k.T).double()
        upper = torch.triu(torch.ones_like(both, dtype=torch.bool), diagonal=1)
        for j, (plane, p) in enumerate(stream.planes):
            bits = view(plane)[rows][:, cols].float()
            on, off = bits * k, (1.0 - bits) * k
            agree = (on @ on.T + off @ off.T).double()
            r = p * p + (1.0 - p) ** 2
            s = stream.slack
            lo_r, hi_r = min((p - s) ** 2 + (1 - p + s) ** 2, (p + s) ** 2 + (1 - p - s) ** 2, r), \
                max((p - s) ** 2 + (1 - p + s) ** 2, (p + s) ** 2 + (1 - p - s) ** 2, r)
            ks, ns = agree[upper], both[upper]
            index = upper.nonzero()
            test.binomial(ks, ns, lo_r, hi_r,
                          lambda i, name=name, j=j, ks=ks, ns=ns, index=index, rows=rows, r=r:
                          f"{name}: rows {int(rows[index[i, 0]])} and {int(rows[index[i, 1]])} agree on "
                          f"{int(ks[i])} of {int(ns[i])} draws{f' (bit {j + 1})' if len(stream.planes) > 1 else ''}, "
                          f"expected a fraction {r:.3f}")
    return test


def spread(size: int, most: int) -> torch.Tensor:
    """Up to `most` indices spread evenly over range(size)."""
    if size <= most:
        return torch.arange(size)
    return torch.linspace(0, size - 1, most).round().long().unique()


@one_thread
def structure_reason(stream: Stream, path: str) -> str | None:
    """None when `stream` passes the tests of independent draws (see the module docstring)."""
    tests = [block_test(stream)] + pair_tests(stream) + [repeat_test(stream)]
    if stream.values is None:
        tests.insert(0, marginal_test(stream))
    for test in tests:
        reason = test.reason(path)
        if reason:
            return reason
    return None


# ---------------------------------------------------------------------------------------------
# Cross-seed independence


CROSS_SHIFTS = (0, 1, -1, 2, -2, 3, -3, 4, -4, 8, -8)


def cross_test(old: Stream, new: Stream, what: str, test: Test) -> None:
    """Draws of two independent streams at flat offsets CROSS_SHIFTS are independent: joint categories are
    binomial, differences of uniforms are uniform, equal values are rare."""
    counts = PairCounts(new)
    a_all, b_all = coded(old).reshape(-1), coded(new).reshape(-1)
    n_all = a_all.numel()
    va_all = old.values.reshape(-1) if new.values is not None and old.values is not None else None
    vb_all = new.values.reshape(-1) if va_all is not None else None
    for s in CROSS_SHIFTS:
        if abs(s) >= n_all:
            continue
        first, second = slice(max(0, -s), n_all - max(0, s)), slice(max(0, s), n_all - max(0, -s))
        counts.add(f"{what}, offset {s}", a_all[first], b_all[second],
                   va_all[first] if va_all is not None else None, vb_all[second] if vb_all is not None else None)
    counts.tests(test, test if va_all is not None else None, test if va_all is not None else None)


def cross_reason(streams: dict[Any, Stream], new: Stream, label: str, path: str) -> str | None:
    """None when `new` is independent of every stream in `streams` (same inputs, other seeds or calls)."""
    test = Test("cross-seed independence (calls with different seeds must give independent draws)")
    same = []
    for other, old in streams.items():
        if old.shape != new.shape:
            continue
        if torch.equal(coded(old), coded(new)) and (new.values is None or torch.equal(old.values, new.values)):
            same.append(other)
        cross_test(old, new, f"{label} vs {describe_tag(other)}", test)
    reason = test.reason(path)
    if reason and same:
        return (f"{path}: {label} gave the same draws as {describe_tag(same[0])}: the generator ignores the seed, "
                f"or keys on only some of its bits (every bit of the 64-bit seed must change the stream); {reason}")
    return reason


class Memo(threading.local):
    """Recent streams per thread: fingerprint of the inputs → {seed or call tag: Stream}."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, dict[Any, Stream]] = OrderedDict()


MEMO = Memo()


def fingerprint(call: Any, skip: str | None, path: str) -> str:
    """Hash of a call's arguments (tensor values, shapes, dtypes; not their layout), without kwarg `skip`."""
    h = hashlib.blake2b(digest_size=16)

    def feed(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            t = value.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{list(t.shape)}".encode())
            if t.numel():
                h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.dtype != torch.bool
                         else t.to(torch.uint8).numpy().tobytes())
        elif isinstance(value, (list, tuple)):
            h.update(b"(" if isinstance(value, tuple) else b"[")
            for v in value:
                feed(v)
            h.update(b")")
        else:
            h.update(repr(value).encode())
        h.update(b";")

    for a in call.args:
        feed(a)
    for k in sorted(call.kwargs):
        if k != skip:
            h.update(k.encode())
            feed(call.kwargs[k])
    h.update(path.encode())
    return h.hexdigest()


def remember(key: str, tag: Any, stream: Stream, path: str, fresh: bool | None = None) -> str | None:
    """Compares `stream` with the remembered streams of the same inputs (`key`), then remembers it under `tag`.

    A tag already remembered for `key` (or fresh=True) starts a new group: the same candidate judged again, or
    the next candidate; within a group every stream must be independent of the others."""
    if stream.cat.numel() > MEMO_ELEMENTS or stream.cat.numel() == 0:
        return None
    group = MEMO.entries.get(key)
    if group is None or tag in group or fresh:
        group = {}
    reason = cross_reason(group, stream, describe_tag(tag), path) if group else None
    group[tag] = stream
    MEMO.entries[key] = group
    MEMO.entries.move_to_end(key)
    while len(MEMO.entries) > MEMO_KEYS:
        MEMO.entries.popitem(last=False)
    return reason


def describe_tag(tag: Any) -> str:
    return f"seed {tag}" if isinstance(tag, int) else str(tag)


def seed_of(call: Any, kwarg: str) -> int:
    value = call.kwargs[kwarg]
    return int(value.item() if isinstance(value, torch.Tensor) else value)


def seeded_reason(call: Any, kwarg: str | None, stream: Stream, path: str) -> str | None:
    """The cross-seed test for a seeded call (nothing when the call has no seed keyword)."""
    if call is None or not kwarg or kwarg not in call.kwargs:
        return None
    return remember(fingerprint(call, kwarg, path), seed_of(call, kwarg), stream, path)


def family_seeds(seed: int, gen: torch.Generator) -> list[int]:
    """Seeds of one seed family: the seed, its neighbour, seeds differing only in bit 40 or above bit 32, and an
    unrelated 62-bit seed. A generator keyed on the low 32 (or 40) bits, on the high bits only, or on the
    seed as a counter offset gives dependent streams for some pair."""
    other = int(torch.randint(0, 2 ** 62, (), generator=gen))
    return [seed, seed + 1, seed ^ (1 << 40), seed + (1 << 33), other]


def family(name: str, build: Callable[[Any], Any], seed: int, gen: torch.Generator) -> list[tuple[str, Any]]:
    """The cases of one seed family: `build(seed)` for each of family_seeds(seed), same inputs otherwise."""
    names = ("base", "seed+1", "seed^2^40", "seed+2^33", "other_seed")
    return [(f"{name}/{tag}", build(s)) for tag, s in zip(names, family_seeds(seed, gen))]


def draw_seed(gen: torch.Generator) -> int:
    """A 62-bit seed (every bit used): stage-2 seeds are full width so that kernels must take an int64 seed."""
    return int(torch.randint(0, 2 ** 62, (), generator=gen))


# ---------------------------------------------------------------------------------------------
# Dropout


def within(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, rms: float) -> torch.Tensor:
    return (out - ref).abs() <= tol.atol * (rms if tol.scale == "rms" else 1.0) + tol.rtol * ref.abs()


def tensor_reason(out, expected: torch.Tensor, path: str) -> str | None:
    if not isinstance(out, torch.Tensor):
        return f"{path}: expected a tensor, got {type(out).__name__}"
    if out.dtype != expected.dtype:
        return f"{path}: dtype {out.dtype} != expected {expected.dtype}"
    if tuple(out.shape) != tuple(expected.shape):
        return f"{path}: shape {list(out.shape)} != expected {list(expected.shape)}"
    return None


@one_thread
def dropout_reason(out, expected: torch.Tensor, kept: torch.Tensor, dropped, p: float, tol: Tolerance,
                   path: str = "output", kept_alt: torch.Tensor | None = None, *, call: Any = None,
                   seed_kwarg: str | None = "seed") -> str | None:
    """None if `out` is a valid dropout outcome: each element within `tol` of `dropped` or of `kept`
    (or of `kept_alt`, a second acceptable kept value at discontinuities), with drops that pass the tests of
    independent Bernoulli(p) draws, and (given the `call`) independent of the drops of the same inputs under
    other seeds.

    `kept`, `dropped` and `kept_alt` are recomputed deterministically (any float dtype, broadcastable to the
    output); with `tol.scale == "rms"`, atol is scaled by the RMS of `kept`. With `tol.rel_rms`, the output must
    also be within that relative RMS error of the values it was classified as (the precision check).
    """
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    shape = expected.shape
    out = out.detach().cpu().double()
    kept = torch.as_tensor(kept).detach().cpu().double().expand(shape)
    dropped = torch.as_tensor(dropped).detach().cpu().double().expand(shape)
    alt = kept if kept_alt is None else torch.as_tensor(kept_alt).detach().cpu().double().expand(shape)
    if not torch.isfinite(out).all():
        idx = first_index(~torch.isfinite(out))
        return f"{path}: non-finite value {out[idx].item()} at {idx} (every kept and dropped value is finite)"
    rms = float(kept.pow(2).mean().sqrt()) if kept.numel() else 0.0
    is_dropped = within(out, dropped, tol, rms)
    is_kept = within(out, kept, tol, rms) | within(out, alt, tol, rms)
    bad = ~(is_dropped | is_kept)
    if bad.any():
        idx = first_index(bad)
        return (f"{path}: {int(bad.sum())} of {out.numel()} values are neither the dropped value nor the kept value "
                f"(pre-dropout × 1/(1−p)); first at {idx}: {out[idx].item():.6g}, dropped {dropped[idx].item():.6g}, "
                f"kept {kept[idx].item():.6g}")
    if tol.rel_rms is not None and out.numel():
        candidates = torch.stack([dropped, kept, alt])
        nearest = candidates.gather(0, (candidates - out).abs().argmin(0, keepdim=True))[0]
        diff, norm = float((out - nearest).pow(2).sum().sqrt()), float(nearest.pow(2).sum().sqrt())
        if diff > tol.rel_rms * norm:
            return (f"{path}: relative RMS error {diff / max(norm, 1e-300):.3g} to the dropped/kept values exceeds "
                    f"{tol.rel_rms:g} (the precision the contract admits)")
    # Where an element's two outcomes cannot be told apart it carries no information about the mask.
    gap = torch.minimum((kept - dropped).abs(), (alt - dropped).abs())
    margin = 2.0 * (tol.atol * (rms if tol.scale == "rms" else 1.0)) + tol.rtol * (
        kept.abs() + alt.abs() + 2.0 * dropped.abs())
    known = gap > margin
    return mask_reason(is_dropped & known, known, p, path, call=call, seed_kwarg=seed_kwarg)


@one_thread
def mask_reason(dropped: torch.Tensor, known: torch.Tensor, p: float, path: str, *, call: Any = None,
                seed_kwarg: str | None = "seed") -> str | None:
    """The tests of independent Bernoulli(p) drops on a mask (counted where `known`), plus the cross-seed
    test when the call is given."""
    stream = mask_stream(dropped.cpu(), known.cpu(), p)
    return structure_reason(stream, path) or seeded_reason(call, seed_kwarg, stream, path)


# ---------------------------------------------------------------------------------------------
# Uniform samples

# Upper bound on P(two independent samples are equal) for a generator of the given output dtype: float16
# values carry 11 random bits or fewer, float32 at least 20, float64 at least 32.
COLLISION = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -20,
             torch.float64: 2.0 ** -32}

UNIFORM_CONTRACT = (
    "Samples are judged by their law: (1) every value finite and in [0, 1) after rounding to the output dtype; "
    "(2) Kolmogorov–Smirnov against U[0, 1) (Dvoretzky–Kiefer–Wolfowitz–Massart bound); (3) block balance: the "
    "number of values below 1/2 in each block of 16 consecutive values follows Binomial(16, 1/2) (a "
    "low-discrepancy sequence such as frac(i·φ) or van der Corput is too even); (4) serial pairs: values at "
    "distances 1…8 and m·2^j along every dimension and the flat order are independent (8×8 cells of the unit "
    "square), (5) their differences mod 1 are uniform, and (6) they are equal no more often than independent "
    "draws (2^-20 for float32, 2^-10 for float16, 2^-32 for float64); (7) repeats: no two rows, slices along any "
    "dimension or flat chunks agree on their top three bits more or less often than independent draws; "
    "(8) cross-seed: calls of the same size with different seeds (seed + 1, seed ^ 2^40, seed + 2^33, another "
    "62-bit seed) give independent streams; (9) float64 output needs more than float32 resolution (fewer than "
    "half the values exactly representable in float32, when n ≥ 16). Each statistical test is a union of exact "
    f"bounds at false-failure rate {ALPHA:g}, at most {UNIFORM_TESTS} per case ({UNIFORM_TESTS * ALPHA:g} per "
    "case); probabilities are widened by the output dtype's resolution."
)


@one_thread
def uniform_reason(out, expected: torch.Tensor, path: str = "output", *, call: Any = None,
                   seed_kwarg: str | None = "seed") -> str | None:
    """None if `out` (same shape and dtype as `expected`) looks like i.i.d. U[0, 1) samples, independent of
    the samples of the same call under other seeds (given the `call`)."""
    reason = tensor_reason(out, expected, path)
    if reason:
        return reason
    x = out.detach().cpu().double()
    n = x.numel()
    if n == 0:
        return None
    flat = x.reshape(-1)
    bad = ~(torch.isfinite(flat) & (flat >= 0) & (flat < 1))
    if bad.any():
        i = int(bad.nonzero()[0])
        return f"{path}: {int(bad.sum())} values outside [0, 1); first at flat index {i}: {flat[i].item()}"
    if expected.dtype == torch.float64 and n >= 16:
        coarse = int((flat == flat.float().double()).sum())
        if coarse > n // 2:
            return f"{path}: {coarse} of {n} float64 values are exactly float32 values (float32 resolution only)"
    stream = uniform_stream(x, dtype=expected.dtype)
    ks = Test("Kolmogorov–Smirnov distance to U[0, 1)")
    ks.ks(flat, stream.slack, "all values")
    return (ks.reason(path) or structure_reason(stream, path) or seeded_reason(call, seed_kwarg, stream, path))


# ---------------------------------------------------------------------------------------------
# Case helpers for the tasks


def flag(gen: torch.Generator) -> bool:
    """A fair coin from the case generator (random stages draw every flag)."""
    return bool(torch.randint(2, (), generator=gen))


def draw_p(gen: torch.Generator, low: float = 0.1, high: float = 0.9) -> float:
    """A dropout probability, rounded to 1/100."""
    return round(float(torch.empty(()).uniform_(low, high, generator=gen)), 2)


def distinguishable(x: torch.Tensor, margin: float = 0.5) -> torch.Tensor:
    """`x` pushed away from 0 (sign(x)·(margin + |x|)): every kept value differs from a dropped 0."""
    return torch.where(x < 0, x - margin, x + margin)
