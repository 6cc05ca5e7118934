import math

import torch
import triton
import triton.language as tl


@triton.jit
def _pow_sum(a, p, MODE: tl.constexpr):
    """Σ over axis 1 of |a|^p (MODE 1: p = 1, 2: p = 2, 3: p = inf (a max), 0: any other p > 0)."""
    if MODE == 1:
        return tl.sum(a, axis=1)
    elif MODE == 2:
        return tl.sum(a * a, axis=1)
    elif MODE == 3:
        return tl.max(a, axis=1)
    else:
        return tl.sum(tl.where(a > 0, tl.exp(p * tl.log(tl.where(a > 0, a, 1.0))), 0.0), axis=1)


@triton.jit
def _root(s, p, MODE: tl.constexpr):
    if MODE == 1 or MODE == 3:
        return s
    elif MODE == 2:
        return tl.sqrt(s)
    else:
        return tl.where(s > 0, tl.exp(tl.log(tl.where(s > 0, s, 1.0)) / p), 0.0)


@triton.jit
def _cosine_kernel(x1_ptr, x2_ptr, out_ptr, V, L, inner, p, eps_norm, eps_sim,
                   MODE: tl.constexpr, BLOCK_V: tl.constexpr, BLOCK_L: tl.constexpr):
    """Vectors v = (o, i) of inputs viewed as (outer, L, inner), BLOCK_V per program, in one pass: the p-norms,
    2-norms and dot product of each pair; then
    out = Σx1·x2 / (N1·N2·max(‖x1‖₂/N1, eps_sim)·max(‖x2‖₂/N2, eps_sim)), N = max(‖x‖_p, eps_norm)."""
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V)
    v_ok = v < V
    base = (v // inner) * L * inner + v % inner
    p1 = tl.zeros((BLOCK_V,), dtype=tl.float32)
    p2 = tl.zeros((BLOCK_V,), dtype=tl.float32)
    q1 = tl.zeros((BLOCK_V,), dtype=tl.float32)
    q2 = tl.zeros((BLOCK_V,), dtype=tl.float32)
    dot = tl.zeros((BLOCK_V,), dtype=tl.float32)
    l0 = 0
    while l0 < L:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        ls = l0 + tl.arange(0, BLOCK_L)
        mask = v_ok[:, None] & (ls < L)[None, :]
        offs = base[:, None] + ls.to(tl.int64)[None, :] * inner
        a = tl.load(x1_ptr + offs, mask=mask, other=0.0)
        b = tl.load(x2_ptr + offs, mask=mask, other=0.0)
        if MODE == 3:
            p1 = tl.maximum(p1, _pow_sum(tl.abs(a), p, MODE))
            p2 = tl.maximum(p2, _pow_sum(tl.abs(b), p, MODE))
        elif MODE != 2:
            p1 += _pow_sum(tl.abs(a), p, MODE)
            p2 += _pow_sum(tl.abs(b), p, MODE)
        q1 += tl.sum(a * a, axis=1)
        q2 += tl.sum(b * b, axis=1)
        dot += tl.sum(a * b, axis=1)
        l0 += BLOCK_L
    if MODE == 2:
        p1 = q1
        p2 = q2
    n1 = tl.maximum(_root(p1, p, MODE), eps_norm)
    n2 = tl.maximum(_root(p2, p, MODE), eps_norm)
    d1 = n1 * tl.maximum(tl.sqrt(q1) / n1, eps_sim)
    d2 = n2 * tl.maximum(tl.sqrt(q2) / n2, eps_sim)
    tl.store(out_ptr + v, dot / d1 / d2, mask=v_ok)


def normalized_cosine_similarity(x1, x2, dim: int = 1, eps_similarity: float = 1e-8, p_norm: float = 2,
                                 eps_norm: float = 1e-12):
    nd = max(x1.dim(), x2.dim())
    shape = []
    for k in range(nd):  # broadcast shape
        a = x1.shape[k - nd + x1.dim()] if k - nd + x1.dim() >= 0 else 1
        b = x2.shape[k - nd + x2.dim()] if k - nd + x2.dim() >= 0 else 1
        shape.append(a if b == 1 else b)
    d = dim % nd
    a = x1.expand(shape).contiguous()
    b = x2.expand(shape).contiguous()
    outer, L, inner = math.prod(shape[:d]), shape[d], math.prod(shape[d + 1:])
    V = outer * inner
    out = torch.empty(V, dtype=torch.float32, device=x1.device)
    p = float(p_norm)
    mode = 1 if p == 1 else 2 if p == 2 else 3 if p == math.inf else 0
    if inner == 1:  # each vector is contiguous
        block_l = min(triton.next_power_of_2(max(L, 1)), 1024)
        block_v = max(1, 2048 // block_l)
    else:  # neighbouring vectors are contiguous
        block_v = min(triton.next_power_of_2(inner), 64)
        block_l = max(1, 2048 // block_v)
    if V:
        _cosine_kernel[(triton.cdiv(V, block_v),)](a, b, out, V, L, inner, p, float(eps_norm),
                                                   float(eps_similarity), MODE=mode, BLOCK_V=block_v,
                                                   BLOCK_L=block_l)
    return out.view(shape[:d] + shape[d + 1:])
