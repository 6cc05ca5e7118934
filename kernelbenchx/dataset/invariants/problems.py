"""Structural checks of single outputs (type, shape, finiteness, triangularity, orthonormality, permutation
matrices, reconstruction and elementwise closeness), computed in float64 (complex128)."""

from __future__ import annotations

import math
from typing import Any

import torch

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
