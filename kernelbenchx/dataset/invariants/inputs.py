"""Input builders of the linear-algebra tasks: matrices whose results are stable (well-conditioned, SPD,
needing pivoting, symmetric indefinite, diagonalizable, low rank plus noise), and the layouts they admit."""

from __future__ import annotations

import math

import torch

from kernelbenchx.dataset.contract import LAYOUT_KINDS
from kernelbenchx.dataset.task import permutation, sample

# Input layouts for tasks whose matrices must keep a structure (SPD, symmetric, invertible, full rank): an
# expanded (stride-0) view repeats one row or column, which makes any matrix of two or more rows singular
# (and breaks symmetry), so those tasks test every other layout.
STRUCTURED_LAYOUTS = tuple(k for k in LAYOUT_KINDS if k != "expanded")


# ---------------------------------------------------------------------------------------------
# Input builders: matrices whose results are stable, drawn from `gen` (``mode`` adds outliers to the
# random part). Built in float64, then cast.


def _eye(m: int, n: int, gen: torch.Generator) -> torch.Tensor:
    return torch.eye(m, n, dtype=torch.float64, device=gen.device)


def gaussian(shape, gen: torch.Generator, mode: str = "standard", dtype=torch.float64) -> torch.Tensor:
    return sample(shape, gen, mode, dtype=torch.float64).to(dtype)


def well_conditioned(m: int, n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                     batch: tuple[int, ...] = (), shift: float = 2.0) -> torch.Tensor:
    """G/√max(m,n) + shift·I (rectangular allowed): singular values roughly in [shift − 1, shift + 1]."""
    g = sample((*batch, m, n), gen, mode, dtype=torch.float64) / math.sqrt(max(m, n, 1))
    return (g + shift * _eye(m, n, gen)).to(dtype)


def coin(gen: torch.Generator) -> bool:
    """A fair coin from `gen` (random cases draw flags with it, so every seed covers a mix)."""
    return bool(torch.randint(2, (), generator=gen, device=gen.device))


def needs_pivoting(m: int, n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                   batch: tuple[int, ...] = (), spike: float = 2.5) -> torch.Tensor:
    """L0·U0 (m×n): LU without pivoting exists and is stable (its factors are L0 and U0, both well-conditioned),
    yet partial pivoting interchanges rows at every other step, so a kernel that pivots when told not to is
    caught. L0 is unit lower triangular with small noise plus, in every other column j, a multiplier of
    magnitude spike … spike + 1 at (j + 1, j) (isolated, so cond(L0) stays small); U0 is upper triangular with
    |diagonal| in [1, 2] and small noise above it."""
    k = min(m, n)
    dev = gen.device
    l0 = torch.tril(sample((*batch, m, k), gen, mode, dtype=torch.float64), -1) * (0.3 / math.sqrt(max(m, 1)))
    l0 = l0 + _eye(m, k, gen)
    cols = torch.arange(0, k, 2, device=dev)
    cols = cols[cols + 1 < m]
    sign = torch.randint(2, (*batch, cols.numel()), generator=gen, device=dev).to(torch.float64) * 2 - 1
    mag = spike + torch.rand((*batch, cols.numel()), generator=gen, device=dev, dtype=torch.float64)
    l0[..., cols + 1, cols] = sign * mag
    u0 = torch.triu(sample((*batch, k, n), gen, mode, dtype=torch.float64), 1) * (0.5 / math.sqrt(max(n, 1)))
    dsign = torch.randint(2, (*batch, k), generator=gen, device=dev).to(torch.float64) * 2 - 1
    diag = dsign * (1.0 + torch.rand((*batch, k), generator=gen, device=dev, dtype=torch.float64))
    idx = torch.arange(k, device=dev)
    u0[..., idx, idx] = diag
    return (l0 @ u0).to(dtype)


def shuffled_rows(a: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """`a` with its rows in random order: still well-conditioned, but LU needs row interchanges."""
    return a[..., permutation(a.shape[-2], gen), :]


def near_identity(n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                  batch: tuple[int, ...] = (), scale: float = 0.5) -> torch.Tensor:
    """I + scale·G/√n: every leading block is well-conditioned (LU is stable without pivoting) and |det| = O(1)."""
    return well_conditioned(n, n, gen, mode, dtype, batch, shift=1.0 / scale) * scale


def tiny_column_block(b: torch.Tensor, rows: int, gen: torch.Generator) -> torch.Tensor:
    """blockdiag(b, t) in float32: t a column of `rows` N(0, 1)·1e-41 values, subnormal in float32 (near underflow:
    1/max|t| overflows), a singular value of about 1e-41 beside b's. With rows = 65 the 64 entries below the
    diagonal fill a whole 64-row block, so no masked lane hides a NaN from the column's scaling."""
    m, n = b.shape
    a = torch.zeros(m + rows, n + 1, dtype=torch.float64, device=gen.device)
    a[:m, :n] = b
    a[m:, n] = gaussian((rows,), gen) * 1e-41
    return a.to(torch.float32)


def spd(n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
        batch: tuple[int, ...] = ()) -> torch.Tensor:
    """G·Gᵀ/n + I: symmetric positive definite with eigenvalues in about [1, 5]."""
    g = sample((*batch, n, n), gen, mode, dtype=torch.float64)
    a = g @ g.mT / max(n, 1) + _eye(n, n, gen)
    return ((a + a.mT) / 2).to(dtype)


def cholesky_factor(n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                    batch: tuple[int, ...] = (), upper: bool = False) -> torch.Tensor:
    """The Cholesky factor of spd(n): a triangular matrix with condition number below about √5."""
    return torch.linalg.cholesky(spd(n, gen, mode, torch.float64, batch), upper=upper).to(dtype)


def symmetric_indefinite(n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                         batch: tuple[int, ...] = ()) -> torch.Tensor:
    """A symmetrically permuted saddle-point matrix [[S, C], [Cᵀ, 0]] (S SPD, C full rank): indefinite, with zero
    diagonal entries that force Bunch-Kaufman pivoting, and eigenvalues bounded away from zero."""
    n2 = n // 3
    n1 = n - n2
    s = spd(n1, gen, mode, torch.float64, batch)
    c = well_conditioned(n1, n2, gen, mode, torch.float64, batch)
    top = torch.cat([s, c], -1)
    bottom = torch.cat([c.mT, torch.zeros((*batch, n2, n2), dtype=torch.float64, device=gen.device)], -1)
    perm = permutation(n, gen)
    a = torch.cat([top, bottom], -2)[..., perm, :][..., :, perm]
    return a.to(dtype)


def spectrum(n: int, gen: torch.Generator, batch: tuple[int, ...], low: float, high: float,
             pairs: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Real parts on a jittered grid (distinct, ≥ half a grid step apart) and imaginary parts for `pairs`
    conjugate pairs (the first 2·pairs entries), as [*batch, n] tensors."""
    slots = n - pairs
    step = (high - low) / max(slots - 1, 1)
    grid = torch.linspace(low, high, slots, dtype=torch.float64, device=gen.device)
    jitter = (torch.rand((*batch, slots), generator=gen, device=gen.device, dtype=torch.float64) - 0.5) * step / 2
    real = (grid + jitter)[..., permutation(slots, gen)]
    real = torch.cat([real[..., :pairs].repeat_interleave(2, -1), real[..., pairs:]], -1)
    im = 0.15 * (high - low) + 0.25 * (high - low) * torch.rand((*batch, pairs), generator=gen,
                                                                 device=gen.device, dtype=torch.float64)
    imag = torch.zeros_like(real)
    imag[..., 0:2 * pairs:2], imag[..., 1:2 * pairs:2] = im, -im
    return real, imag


def diagonalizable(n: int, gen: torch.Generator, mode: str = "standard", dtype=torch.float64,
                   batch: tuple[int, ...] = (), *, symmetric: bool = False, low: float = -2.0,
                   high: float = 2.0, pairs: int | None = None) -> torch.Tensor:
    """V·B·V⁻¹ with well-separated eigenvalues: B holds real eigenvalues on the diagonal and 2×2 blocks
    [[a, b], [−b, a]] for conjugate pairs a ± ib; V is well-conditioned (orthogonal when symmetric)."""
    pairs = 0 if symmetric else (n // 4 if pairs is None else pairs)
    real, imag = spectrum(n, gen, batch, low, high, pairs)
    b = torch.diag_embed(real)
    idx = torch.arange(0, 2 * pairs, 2, device=gen.device)
    b[..., idx, idx + 1] = imag[..., 0:2 * pairs:2]
    b[..., idx + 1, idx] = -imag[..., 0:2 * pairs:2]
    if symmetric:
        v = torch.linalg.qr(gaussian((*batch, n, n), gen, mode))[0]
        a = v @ b @ v.mT
        a = (a + a.mT) / 2
    else:
        v = well_conditioned(n, n, gen, mode, torch.float64, batch)
        a = torch.linalg.solve(v.mT, (v @ b).mT).mT  # V·B·V⁻¹
    return a.to(dtype)


def low_rank_plus_noise(m: int, n: int, rank: int, gen: torch.Generator, mode: str = "standard",
                        dtype=torch.float32, batch: tuple[int, ...] = (), noise: float = 0.1) -> torch.Tensor:
    """X·Yᵀ/√rank + noise·E: a clear gap after the `rank` largest singular values (for rank ≤ min(m, n)/4)."""
    x = sample((*batch, m, rank), gen, mode, dtype=torch.float64)
    y = sample((*batch, n, rank), gen, mode, dtype=torch.float64)
    e = sample((*batch, m, n), gen, mode, dtype=torch.float64)
    return (x @ y.mT / math.sqrt(rank) + noise * e).to(dtype)
