"""Linear-algebra judging and inputs: decompositions are checked by reconstruction error and factor invariants.

Factors of QR, SVD, LU, eig and LDLᵀ are not unique (signs, phases, order, pivot choices), so they are never
compared elementwise. A factorization passes when (a) every output has the reference's type, shape and dtype and
is finite, (b) the factors have their structural invariants (exact zeros of triangular factors, unit diagonals,
orthonormal columns, valid permutations, sorted non-negative singular values, unit-norm eigenvectors), and
(c) the factors rebuild the input: ‖rebuilt − A‖_F ≤ tol·‖A‖_F. Unique quantities (singular values, |diag R|,
the Cholesky factor, solutions of well-conditioned systems, determinants) are also compared with the reference.

Tolerances come from the dtype and the matrix size n (its largest dimension): tol = 64·√n·ε, ε the unit
roundoff (1.19e-7 for float32, 2.22e-16 for float64), times a small factor where conditioning enters.
All norms are computed in float64 (complex128) on the device of the input matrix.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from kernelbenchx.dataset.contract import LAYOUT_KINDS, Tolerance
from kernelbenchx.dataset.task import Call, permutation, sample

TOL_SCALE = 64.0
SVD_FACTOR = 8.0
Check = Callable[[Call, Any, Any, Any], "str | None"]
# Input layouts for tasks whose matrices must keep a structure (SPD, symmetric, invertible, full rank): an
# expanded (stride-0) view repeats one row or column, which makes any matrix of two or more rows singular
# (and breaks symmetry), so those tasks test every other layout.
STRUCTURED_LAYOUTS = tuple(k for k in LAYOUT_KINDS if k != "expanded")


# ---------------------------------------------------------------------------------------------
# Tolerances.


def unit_roundoff(dtype: torch.dtype) -> float:
    return torch.finfo(dtype.to_real() if dtype.is_complex else dtype).eps


def tolerance(dtype: torch.dtype, n: int, factor: float = 1.0) -> float:
    """The relative tolerance for an n-sized problem in `dtype`: factor·64·√n·ε."""
    return factor * TOL_SCALE * math.sqrt(max(n, 1)) * unit_roundoff(dtype)


def tolerance_text(factor: float = 1.0) -> str:
    return (f"tol = {factor * TOL_SCALE:g}·√n·ε (n: the largest matrix dimension; ε: the unit roundoff, 2.22e-16 "
            "for float64, 1.19e-7 for float32)")


def shown_tolerance(dtype: torch.dtype, factor: float = 1.0, rms: bool = True) -> Tolerance:
    """The contract's elementwise line: tol at n = 256 (the notes state how it scales with n)."""
    t = float(f"{tolerance(dtype, 256, factor):.2g}")
    return Tolerance(rtol=t, atol=t, scale="rms") if rms else Tolerance(rtol=t, atol=0.0)


def matrix_size(call: Call) -> int:
    """The largest matrix dimension among the call's tensors (vectors count their length)."""
    sizes = [max(t.shape[-2:]) for t in call.tensors() if t.dim() >= 1 and t.numel()]
    return max(sizes, default=1)


def arg(call: Call, index: int, name: str, default: Any) -> Any:
    """A parameter that may arrive positionally or by keyword."""
    if name in call.kwargs:
        return call.kwargs[name]
    return call.args[index] if len(call.args) > index else default


# ---------------------------------------------------------------------------------------------
# Structural checks. Each returns None or a one-line reason.


def wide(x: torch.Tensor, device: torch.device | None = None) -> torch.Tensor:
    """`x` in float64 (complex128), on `device` when given (checks work on the input's device)."""
    return x.detach().to(device=device, dtype=torch.complex128 if x.is_complex() else torch.float64)


def tensor_problem(x: Any, name: str, like: torch.Tensor | None = None, *, shape=None, dtype=None) -> str | None:
    """Type, dtype, shape (from `like` unless given) and finiteness of one output tensor."""
    if not isinstance(x, torch.Tensor):
        return f"{name}: expected a tensor, got {type(x).__name__}"
    dtype = like.dtype if dtype is None else dtype
    shape = tuple(like.shape) if shape is None else tuple(shape)
    if x.dtype != dtype:
        return f"{name}: dtype {x.dtype} != expected {dtype}"
    if tuple(x.shape) != shape:
        return f"{name}: shape {list(x.shape)} != expected {list(shape)}"
    if (x.is_floating_point() or x.is_complex()) and x.numel() and not bool(torch.isfinite(x).all()):
        return f"{name}: contains NaN or inf"
    return None


def sequence_problem(out: Any, count: int, name: str = "output") -> str | None:
    if not isinstance(out, (tuple, list)):
        return f"{name}: expected a tuple of {count} tensors, got {type(out).__name__}"
    if len(out) != count:
        return f"{name}: expected {count} items, got {len(out)}"
    return None


def batch_max(values: torch.Tensor) -> float:
    """The worst value over a batch; NaN counts as infinitely bad."""
    if values.numel() == 0:
        return 0.0
    return math.inf if bool(torch.isnan(values).any()) else float(values.max())


def relative_error(x: torch.Tensor, ref: torch.Tensor, dims: int = 2) -> float:
    """max over the batch of ‖x − ref‖_F / ‖ref‖_F over the last `dims` dimensions."""
    x, ref = wide(x, ref.device), wide(ref)
    axes = tuple(range(-dims, 0))
    num = torch.linalg.vector_norm(x - ref, dim=axes)
    den = torch.linalg.vector_norm(ref, dim=axes).clamp_min(torch.finfo(torch.float64).tiny)
    return batch_max(num / den)


def triangular_problem(t: torch.Tensor, name: str, upper: bool, diag: str | None = None) -> str | None:
    """Exact zeros on the other side of the diagonal; diag "unit" (exact ones) or "positive" (real > 0)."""
    outside = torch.tril(t, -1) if upper else torch.triu(t, 1)
    if bool((outside != 0).any()):
        side = "below" if upper else "above"
        return f"{name}: must be {'upper' if upper else 'lower'} triangular (exact zeros {side} the diagonal)"
    d = torch.diagonal(t, dim1=-2, dim2=-1)
    if diag == "unit" and bool((d != 1).any()):
        return f"{name}: diagonal must be exactly 1"
    if diag == "positive":
        real = d.real if d.is_complex() else d
        if not bool((real > 0).all()) or (d.is_complex() and bool((d.imag != 0).any())):
            return f"{name}: diagonal must be real and positive"
    return None


def orthonormal_problem(q: torch.Tensor, name: str, tol: float, rows: bool = False) -> str | None:
    """‖QᴴQ − I‖_F/√k ≤ tol (columns), or ‖QQᴴ − I‖_F/√k ≤ tol (rows)."""
    qw = wide(q)
    gram = qw @ qw.mH if rows else qw.mH @ qw
    k = gram.shape[-1]
    if k == 0:
        return None
    eye = torch.eye(k, dtype=gram.dtype, device=gram.device)
    err = batch_max(torch.linalg.matrix_norm(gram - eye) / math.sqrt(k))
    if not err <= tol:
        what = "rows" if rows else "columns"
        return f"{name}: {what} not orthonormal: ‖{'QQᴴ' if rows else 'QᴴQ'} − I‖_F/√k = {err:.3g} > {tol:.3g}"
    return None


def permutation_matrix_problem(p: torch.Tensor, name: str) -> str | None:
    if bool(((p != 0) & (p != 1)).any()):
        return f"{name}: a permutation matrix has only exact 0 and 1 entries"
    if bool((p.sum(-1) != 1).any()) or bool((p.sum(-2) != 1).any()):
        return f"{name}: not a permutation matrix (each row and column needs exactly one 1)"
    return None


def reconstruction_problem(rebuilt: torch.Tensor, a: torch.Tensor, tol: float, what: str) -> str | None:
    err = relative_error(rebuilt, a)
    if not err <= tol:
        return f"{what} does not rebuild A: ‖rebuilt − A‖_F/‖A‖_F = {err:.3g} > {tol:.3g}"
    return None


def close_problem(out: Any, ref: torch.Tensor, tol: float, name: str = "output", rms: bool = True) -> str | None:
    """Elementwise |out − ref| ≤ tol·(RMS(ref) + |ref|) (tol·|ref| when rms is False), by complex magnitude;
    NaN and ±inf only where the reference has them; dtype and shape must match."""
    if not isinstance(out, torch.Tensor):
        return f"{name}: expected a tensor, got {type(out).__name__}"
    if out.dtype != ref.dtype:
        return f"{name}: dtype {out.dtype} != expected {ref.dtype}"
    if tuple(out.shape) != tuple(ref.shape):
        return f"{name}: shape {list(out.shape)} != expected {list(ref.shape)}"
    o, r = wide(out, ref.device), wide(ref)
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        return f"{name}: NaN positions differ from the reference"
    r_inf = torch.isinf(r)
    if not torch.equal(torch.isinf(o), r_inf) or not bool((o[r_inf] == r[r_inf]).all()):
        return f"{name}: ±inf positions differ from the reference"
    r_fin = torch.isfinite(r)
    if not bool(r_fin.any()):
        return None
    scale = (r[r_fin].abs().pow(2).mean().sqrt().item()) if rms else 0.0
    err = torch.where(r_fin, (o - r).abs(), torch.zeros_like(r.real if r.is_complex() else r))
    bound = tol * (scale + r.abs())
    bad = r_fin & ~(err <= bound)
    if bool(bad.any()):
        worst = float((err / (scale + r.abs()).clamp_min(1e-300))[bad].max())
        return (f"{name}: {int(bad.sum())} of {r.numel()} values outside tolerance: "
                f"|out − ref|/({'RMS(ref) + ' if rms else ''}|ref|) up to {worst:.3g} > {tol:.3g}")
    return None


# ---------------------------------------------------------------------------------------------
# Checks for unique results (solutions, inverses, determinants, reconstructions).


def close_check(factor: float = 1.0, rms: bool = True) -> Check:
    """Elementwise comparison with the reference at tol(dtype, n)·factor; for outputs that are unique."""

    def check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
        tol = tolerance(expected.dtype, matrix_size(call), factor)
        return close_problem(output, expected, tol, rms=rms)

    return check


# ---------------------------------------------------------------------------------------------
# Checks for decompositions.


def cholesky_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """L lower (U upper) triangular with a positive real diagonal, LLᴴ = A, and close to the unique factor."""
    a = call.args[0]
    upper = bool(call.kwargs.get("upper", False))
    reason = tensor_problem(output, "output", expected) or triangular_problem(output, "output", upper, "positive")
    if reason:
        return reason
    tol = tolerance(expected.dtype, a.shape[-1])
    f = wide(output, a.device)
    rebuilt = f.mH @ f if upper else f @ f.mH
    reason = reconstruction_problem(rebuilt, a, tol, "the factor")
    if reason:
        return reason
    err = relative_error(output, expected)
    if not err <= 4 * tol:
        return f"output: differs from the (unique) Cholesky factor: relative error {err:.3g} > {4 * tol:.3g}"
    return None


def lu_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """P a permutation matrix (empty without pivoting), L unit lower, U upper, PLU = A; with pivoting |L| ≤ 1."""
    a = call.args[0]
    pivot = bool(call.kwargs.get("pivot", True))
    reason = sequence_problem(output, 3)
    if reason:
        return reason
    p, l, u = output
    for name, x, ref in zip(("P", "L", "U"), output, expected):
        reason = tensor_problem(x, name, ref)
        if reason:
            return reason
    reason = triangular_problem(l, "L", upper=False, diag="unit") or triangular_problem(u, "U", upper=True)
    if reason:
        return reason
    tol = tolerance(expected[1].dtype, max(a.shape[-2:]))
    rebuilt = wide(l, a.device) @ wide(u, a.device)
    if pivot:
        reason = permutation_matrix_problem(p, "P")
        if reason:
            return reason
        if bool((l.abs() > 1 + tol).any()):
            return "L: partial pivoting keeps every multiplier |L_ij| ≤ 1"
        rebuilt = wide(p, a.device) @ rebuilt
    return reconstruction_problem(rebuilt, a, tol, "P·L·U" if pivot else "L·U")


def qr_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """Q orthonormal columns, R upper triangular, QR = A; R equal to the reference up to the signs of its rows."""
    a = call.args[0]
    mode = arg(call, 1, "mode", "reduced")
    reason = sequence_problem(output, 2)
    if reason:
        return reason
    q, r = output
    reason = (tensor_problem(q, "Q", expected[0]) or tensor_problem(r, "R", expected[1])
              or triangular_problem(r, "R", upper=True))
    if reason:
        return reason
    tol = tolerance(r.dtype, max(a.shape[-2:]))
    if mode != "r":
        rebuilt = wide(q, a.device) @ wide(r, a.device)
        reason = orthonormal_problem(q, "Q", tol) or reconstruction_problem(rebuilt, a, tol, "Q·R")
        if reason:
            return reason
    k = min(a.shape[-2:])
    rw, ref = wide(r, a.device)[..., :k, :], wide(expected[1], a.device)[..., :k, :]
    d, dref = torch.diagonal(rw, dim1=-2, dim2=-1), torch.diagonal(ref, dim1=-2, dim2=-1)
    # rows of R are unique up to a unit factor: align each row's phase with the reference's diagonal
    phase = torch.where(d.abs() > 0, dref / d.where(d != 0, torch.ones_like(d)), torch.ones_like(d))
    phase = phase / phase.abs().clamp_min(1e-300)
    err = relative_error(rw * phase.unsqueeze(-1), ref)
    if not err <= 4 * tol:
        return f"R: differs from the reference beyond row signs: relative error {err:.3g} > {4 * tol:.3g}"
    return None


def svd_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """S sorted, non-negative and equal to the reference; U and Vh orthonormal; U·diag(S)·Vh = A."""
    a = call.args[0]
    reason = sequence_problem(output, 3)
    if reason:
        return reason
    u, s, vh = output
    for name, x, ref in zip(("U", "S", "Vh"), output, expected):
        reason = tensor_problem(x, name, ref)
        if reason:
            return reason
    # cuSOLVER's own float32 SVD (torch on CUDA) leaves ‖VᴴV − I‖ near 4·n·ε at n = 1024: factor 8 admits it
    tol = tolerance(s.dtype, max(a.shape[-2:]), SVD_FACTOR)
    reason = singular_values_problem(s, expected[1], tol)
    if reason:
        return reason
    reason = orthonormal_problem(u, "U", tol) or orthonormal_problem(vh, "Vh", tol, rows=True)
    if reason:
        return reason
    k = s.shape[-1]
    dev = a.device
    rebuilt = (wide(u, dev)[..., :, :k] * wide(s, dev).unsqueeze(-2)) @ wide(vh, dev)[..., :k, :]
    return reconstruction_problem(rebuilt, a, tol, "U·diag(S)·Vh")


def singular_values_problem(s: torch.Tensor, ref: torch.Tensor, tol: float) -> str | None:
    if bool((s < 0).any()):
        return "S: singular values must be non-negative"
    if s.shape[-1] > 1 and bool((s[..., 1:] > s[..., :-1]).any()):
        return "S: singular values must be sorted in descending order"
    sw, rw = wide(s, ref.device), wide(ref)
    top = rw[..., :1].clamp_min(torch.finfo(torch.float64).tiny) if rw.shape[-1] else rw
    err = batch_max(((sw - rw).abs() / top).amax(-1)) if rw.shape[-1] else 0.0
    if not err <= tol:
        return f"S: singular values differ from the reference: max |S − S_ref|/S_max = {err:.3g} > {tol:.3g}"
    return None


def eig_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """Eigenvalues equal to the reference as a multiset; each eigenvector has unit norm and ‖Av − λv‖ ≤ tol·‖A‖."""
    a = call.args[0]
    reason = sequence_problem(output, 2)
    if reason:
        return reason
    vals, vecs = output
    reason = tensor_problem(vals, "eigenvalues", expected[0]) or tensor_problem(vecs, "eigenvectors", expected[1])
    if reason:
        return reason
    n = a.shape[-1]
    if n == 0:
        return None
    tol = tolerance(vals.dtype, n)
    aw = wide(a).to(torch.complex128).reshape(-1, n, n)
    lam, v = wide(vals, a.device).reshape(-1, n), wide(vecs, a.device).reshape(-1, n, n)
    lam_ref = wide(expected[0], a.device).reshape(-1, n)
    norm_a = torch.linalg.matrix_norm(aw).unsqueeze(-1)
    # eigenvalue conditioning is bounded by cond(V) of the test matrices, which are built to keep it small
    reason = multiset_problem(lam, lam_ref, 16 * tol * norm_a)
    if reason:
        return reason
    col_norm = torch.linalg.vector_norm(v, dim=-2)
    if not batch_max((col_norm - 1).abs()) <= tol:
        return "eigenvectors: every column must have Euclidean norm 1"
    residual = torch.linalg.vector_norm(aw @ v - v * lam.unsqueeze(-2), dim=-2) / norm_a
    err = batch_max(residual)
    if not err <= tol:
        return f"eigenvectors: residual ‖Av − λv‖/‖A‖_F = {err:.3g} > {tol:.3g}"
    # A = V·diag(λ)·V⁻¹ needs independent eigenvectors (only in doubt for repeated eigenvalues)
    smallest = torch.linalg.svdvals(v)[..., -1]
    smallest_ref = torch.linalg.svdvals(wide(expected[1], a.device).reshape(-1, n, n))[..., -1]
    if bool((smallest < 1e-2 * smallest_ref).any()):
        return "eigenvectors: columns are (nearly) linearly dependent"
    return None


def multiset_problem(vals: torch.Tensor, ref: torch.Tensor, tol: torch.Tensor) -> str | None:
    """Greedy nearest matching per batch row: each reference value in turn takes the closest unused output
    value (exact for repeated values; the test spectra are separated far beyond the tolerance)."""
    dist = (vals.unsqueeze(-1) - ref.unsqueeze(-2)).abs()  # [batch, out, ref]
    used = torch.zeros(vals.shape, dtype=torch.bool, device=vals.device)
    worst = torch.zeros(vals.shape[:-1], dtype=torch.float64, device=vals.device)
    for j in range(ref.shape[-1]):
        d = dist[..., j].masked_fill(used, math.inf)
        i = d.argmin(-1, keepdim=True)
        worst = torch.maximum(worst, d.gather(-1, i).squeeze(-1))
        used.scatter_(-1, i, True)
    bad = ~(worst <= tol.squeeze(-1))
    if bool(bad.any()):
        return (f"eigenvalues: do not match the reference's as a multiset: off by up to {float(worst.max()):.3g} "
                f"(tolerance {float(tol.max()):.3g})")
    return None


def ldl_check(call: Call, output: Any, expected: Any, contract: Any = None) -> str | None:
    """LD lower triangular in LAPACK sytrf format with valid pivots, and L·D·Lᵀ rebuilds A."""
    a = call.args[0]
    hermitian = bool(call.kwargs.get("hermitian", False))
    reason = sequence_problem(output, 2)
    if reason:
        return reason
    ld, piv = output
    reason = (tensor_problem(ld, "LD", expected[0]) or tensor_problem(piv, "pivots", expected[1])
              or triangular_problem(ld, "LD", upper=False))
    if reason:
        return reason
    n = a.shape[-1]
    lds, pivs = ld.reshape(-1, n, n), piv.reshape(-1, n).cpu()
    rebuilt = []
    for m, p in zip(lds, pivs):
        blocks = pivot_blocks(p.tolist(), n)
        if isinstance(blocks, str):
            return f"pivots: {blocks}"
        rebuilt.append(ldl_rebuild(wide(m, a.device), blocks, hermitian))
    tol = tolerance(ld.dtype, n, 2.0)
    rebuilt_t = torch.stack(rebuilt).reshape(a.shape) if rebuilt else wide(a)
    return reconstruction_problem(rebuilt_t, a, tol, "L·D·Lᵀ")


def pivot_blocks(piv: list[int], n: int) -> list[tuple[int, int, int]] | str:
    """(start, size, row swapped with row start+size−1) per diagonal block of D, or a reason the pivots are invalid.
    LAPACK (1-based): piv[k] > 0: 1×1 block, rows k and piv[k] swapped; piv[k] = piv[k+1] < 0: 2×2 block, rows
    k+1 and −piv[k] swapped."""
    blocks, k = [], 0
    while k < n:
        p = piv[k]
        if p > 0:
            if not k + 1 <= p <= n:
                return f"pivots[{k}] = {p} is out of range [{k + 1}, {n}]"
            blocks.append((k, 1, p - 1))
            k += 1
        elif p < 0:
            if k + 1 >= n or piv[k + 1] != p or not k + 2 <= -p <= n:
                return f"pivots[{k}] = {p} does not start a valid 2×2 block"
            blocks.append((k, 2, -p - 1))
            k += 2
        else:
            return f"pivots[{k}] = 0 is not a valid pivot"
    return blocks


def ldl_rebuild(ld: torch.Tensor, blocks: list[tuple[int, int, int]], hermitian: bool) -> torch.Tensor:
    """A = L·D·Lᵀ with L = P(1)·L(1)·P(2)·L(2)··· as LAPACK's sytrf defines for the lower triangle."""
    n = ld.shape[-1]
    m = torch.eye(n, dtype=ld.dtype, device=ld.device)
    d = torch.zeros_like(m)
    for k, s, r in blocks:
        last = k + s - 1
        m[:, [last, r]] = m[:, [r, last]]
        m[:, k:k + s] += m[:, k + s:] @ ld[k + s:, k:k + s]
        d[k, k] = ld[k, k]
        if s == 2:
            d[k + 1, k + 1] = ld[k + 1, k + 1]
            d[k + 1, k] = ld[k + 1, k]
            d[k, k + 1] = ld[k + 1, k].conj() if hermitian else ld[k + 1, k]
    return m @ d @ (m.mH if hermitian else m.mT)


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


# ---------------------------------------------------------------------------------------------
# FLOP counts of the standard dense algorithms.


def lu_flops(m: int, n: int) -> float:
    k = min(m, n)
    return 2.0 * (m * n * k - (m + n) * k * k / 2 + k ** 3 / 3)


def qr_flops(m: int, n: int, form_q: bool = True) -> float:
    """Householder QR (2·M·N² − 2N³/3 with M ≥ N), plus as much again to form the reduced Q."""
    big, small = max(m, n), min(m, n)
    r = 2.0 * big * small * small - 2.0 * small ** 3 / 3
    return 2 * r if form_q else r


def svd_flops(m: int, n: int) -> float:
    """Golub-Van Loan count for the thin SVD with singular vectors of an M×N matrix (M ≥ N): 14MN² + 8N³."""
    big, small = max(m, n), min(m, n)
    return 14.0 * big * small * small + 8.0 * small ** 3


def batch_count(t: torch.Tensor) -> int:
    return math.prod(t.shape[:-2])
