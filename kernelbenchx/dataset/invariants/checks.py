"""The tasks' checks: elementwise comparison for unique results (`close_check`) and the factor invariants
plus reconstruction of Cholesky, LU, QR, SVD, eig and LDLᵀ decompositions."""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from kernelbenchx.dataset.invariants.problems import (
    batch_max, close_problem, orthonormal_problem, permutation_matrix_problem, reconstruction_problem,
    relative_error, sequence_problem, tensor_problem, triangular_problem, wide,
)
from kernelbenchx.dataset.invariants.tolerances import arg, matrix_size, tolerance
from kernelbenchx.dataset.task import Call

SVD_FACTOR = 8.0
Check = Callable[[Call, Any, Any, Any], "str | None"]


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
