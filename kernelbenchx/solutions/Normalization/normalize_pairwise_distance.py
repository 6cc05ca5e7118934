import math

import torch
import triton
import triton.language as tl


@triton.jit
def _pow_sum(a, p, MODE: tl.constexpr):
    """Σ over axis 1 of a^p for a ≥ 0 (MODE 1: p = 1, 2: p = 2, 3: p = inf (a max), 4: p = 0 (a count),
    0: any other p > 0)."""
    if MODE == 1:
        return tl.sum(a, axis=1)
    elif MODE == 2:
        return tl.sum(a * a, axis=1)
    elif MODE == 3:
        return tl.max(a, axis=1)
    elif MODE == 4:
        return tl.sum((a != 0).to(tl.float32), axis=1)
    else:
        return tl.sum(tl.where(a > 0, tl.exp(p * tl.log(tl.where(a > 0, a, 1.0))), 0.0), axis=1)


@triton.jit
def _root(s, p, MODE: tl.constexpr):
    if MODE == 1 or MODE == 3 or MODE == 4:
        return s
    elif MODE == 2:
        return tl.sqrt(s)
    else:
        return tl.where(s > 0, tl.exp(tl.log(tl.where(s > 0, s, 1.0)) / p), 0.0)


@triton.jit
def _distance_kernel(x1_ptr, x2_ptr, d_ptr, R, D, p, eps, MODE: tl.constexpr, BLOCK_R: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    """d[r] = ‖x1[r, :] − x2[r, :] + eps‖_p for rows of length D (inputs contiguous, same shape)."""
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    r_ok = rows < R
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    c0 = 0
    while c0 < D:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        cols = c0 + tl.arange(0, BLOCK_D)
        mask = r_ok[:, None] & (cols < D)[None, :]
        offs = rows[:, None] * D + cols[None, :]
        diff = tl.load(x1_ptr + offs, mask=mask, other=0.0) - tl.load(x2_ptr + offs, mask=mask, other=0.0)
        a = tl.where(mask, tl.abs(diff + eps), 0.0)
        if MODE == 3:
            acc = tl.maximum(acc, _pow_sum(a, p, MODE))
        else:
            acc += _pow_sum(a, p, MODE)
        c0 += BLOCK_D
    tl.store(d_ptr + rows, _root(acc, p, MODE), mask=r_ok)


@triton.jit
def _normalize_kernel(d_ptr, out_ptr, V, L, inner, p, eps, MODE: tl.constexpr, BLOCK_V: tl.constexpr,
                      BLOCK_L: tl.constexpr):
    """d viewed as (outer, L, inner): out = d / max(‖d‖_p over L, eps) for the vectors v = (o, i)."""
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V)
    v_ok = v < V
    base = (v // inner) * L * inner + v % inner
    acc = tl.zeros((BLOCK_V,), dtype=tl.float32)
    l0 = 0
    while l0 < L:
        ls = l0 + tl.arange(0, BLOCK_L)
        mask = v_ok[:, None] & (ls < L)[None, :]
        a = tl.abs(tl.load(d_ptr + base[:, None] + ls.to(tl.int64)[None, :] * inner, mask=mask, other=0.0))
        if MODE == 3:
            acc = tl.maximum(acc, _pow_sum(a, p, MODE))
        else:
            acc += _pow_sum(a, p, MODE)
        l0 += BLOCK_L
    norm = tl.maximum(_root(acc, p, MODE), eps)
    l0 = 0
    while l0 < L:
        ls = l0 + tl.arange(0, BLOCK_L)
        mask = v_ok[:, None] & (ls < L)[None, :]
        offs = base[:, None] + ls.to(tl.int64)[None, :] * inner
        tl.store(out_ptr + offs, tl.load(d_ptr + offs, mask=mask, other=0.0) / norm[:, None], mask=mask)
        l0 += BLOCK_L


def _mode(p):
    return 1 if p == 1 else 2 if p == 2 else 3 if p == math.inf else 4 if p == 0 else 0


def normalize_pairwise_distance(x1, x2, p_distance: float = 2.0, eps_distance: float = 1e-6, keepdim: bool = False,
                                p_norm: float = 2, dim_norm: int = 1, eps_norm: float = 1e-12):
    nd = max(x1.dim(), x2.dim())
    shape = []
    for k in range(nd):  # broadcast shape
        a = x1.shape[k - nd + x1.dim()] if k - nd + x1.dim() >= 0 else 1
        b = x2.shape[k - nd + x2.dim()] if k - nd + x2.dim() >= 0 else 1
        shape.append(a if b == 1 else b)
    a = x1.expand(shape).contiguous()
    b = x2.expand(shape).contiguous()
    D = shape[-1]
    R = math.prod(shape[:-1])
    d = torch.empty(R, dtype=torch.float32, device=x1.device)
    block_d = min(triton.next_power_of_2(max(D, 1)), 512)
    block_r = max(1, 2048 // block_d)
    if R:
        _distance_kernel[(triton.cdiv(R, block_r),)](a, b, d, R, D, float(p_distance), float(eps_distance),
                                                     MODE=_mode(float(p_distance)), BLOCK_R=block_r,
                                                     BLOCK_D=block_d)
    d_shape = shape[:-1] + ([1] if keepdim else [])
    k = dim_norm % max(len(d_shape), 1)
    outer, L, inner = math.prod(d_shape[:k]), d_shape[k] if d_shape else 1, math.prod(d_shape[k + 1:])
    V = outer * inner
    out = torch.empty(R, dtype=torch.float32, device=x1.device)
    if inner == 1:
        block_l = min(triton.next_power_of_2(max(L, 1)), 1024)
        block_v = max(1, 1024 // block_l)
    else:
        block_v = min(triton.next_power_of_2(inner), 128)
        block_l = max(1, 1024 // block_v)
    if V:
        _normalize_kernel[(triton.cdiv(V, block_v),)](d, out, V, L, inner, float(p_norm), float(eps_norm),
                                                      MODE=_mode(float(p_norm)), BLOCK_V=block_v, BLOCK_L=block_l)
    return out.view(d_shape)
