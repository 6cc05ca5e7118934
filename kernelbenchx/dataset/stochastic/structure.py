"""Tests that the draws of one stream are independent with the stated law: category counts, block balance,
serial pairs at many distances along every axis, and repeats between rows, hyperplanes and flat chunks."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import torch

from kernelbenchx.dataset.stochastic.bounds import Test, one_thread
from kernelbenchx.dataset.stochastic.streams import COLLISION, Stream

BLOCK = 16  # values per block in the block-balance test
MAX_PAIRS = 1 << 15  # pairs counted per distance and axis in the serial-pair tests (the first ones)
MAX_ROWS = 256  # rows compared pairwise in one view of the repeat test (spread over the view)
MAX_COLS = 512  # positions compared per row pair (spread over the row)


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
        if periods == 1:  # past `cap`, the first `cap` of the period: a whole one was 2^26 pairs at 2^27 values
            width = min(k, cap)
            return t[:, :width].reshape(-1), t[:, k:k + width].reshape(-1)
        v = t[:, :periods * 2 * k].reshape(rows, periods, 2, k)
        return v[:, :, 0, :].reshape(-1), v[:, :, 1, :].reshape(-1)
    m = min(length - k, cap)
    return t[:, :m].reshape(-1), t[:, k:k + m].reshape(-1)


def coded(stream: Stream) -> torch.Tensor:
    """Categories with unknown draws as category C."""
    return torch.where(stream.known, stream.cat, torch.full_like(stream.cat, len(stream.probs)))


def compact(codes: torch.Tensor, c: int) -> torch.Tensor:
    """`codes` (0…C) as bytes where every joint code a·(C + 1) + b fits one (C ≤ 15): each axis view of a stream
    is a copy, and at 2^26 draws an int64 copy is 512 MB."""
    return codes.to(torch.uint8) if (c + 1) ** 2 <= 256 else codes


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
    # unknown draws counted as category C and dropped: a boolean index of a 2^26-draw stream cost seconds
    counts = torch.bincount(coded(stream).reshape(-1), minlength=c + 1)[:c]
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
    bits = plane.reshape(-1) if bool(stream.known.all()) else plane[stream.known].reshape(-1)
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
    codes = compact(coded(stream), len(stream.probs))
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


# A stream this large has its test groups built side by side, each single-threaded: a perf-size dropout output's
# battery ran 4.8 s on one core for 2^25.6 draws (marginal 1.3 s, blocks 1.2, pairs 1.7, repeats 0.2), and it is
# what is left of the slowest judgements after their GPU turn (docs/performance.md, runs 42-46).
SIDE_BY_SIDE_FROM = 1 << 22


@one_thread
def structure_reason(stream: Stream, path: str) -> str | None:
    """None when `stream` passes the tests of independent draws (see the module docstring). The first failing
    test in order gives the reason, however the tests were built."""
    groups = ([marginal_test] if stream.values is None else []) + [block_test, pair_tests, repeat_test]
    if stream.cat.numel() >= SIDE_BY_SIDE_FROM:
        with ThreadPoolExecutor(len(groups), initializer=torch.set_num_threads, initargs=(1,)) as pool:
            built = list(pool.map(lambda group: group(stream), groups))
    else:
        built = [group(stream) for group in groups]
    for test in (t for group in built for t in (group if isinstance(group, list) else [group])):
        reason = test.reason(path)
        if reason:
            return reason
    return None
