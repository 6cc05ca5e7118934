import math

import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x, TANH: tl.constexpr):
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))


@triton.jit
def _gelu_moments(x_ptr, cnt_ptr, mean_ptr, m2_ptr, out_ptr, N, chunk, xs_m, xs_n, denom,
                  TANH: tl.constexpr, FINAL: tl.constexpr, DEGENERATE: tl.constexpr, BLOCK: tl.constexpr):
    """Count, mean and sum of squared deviations of GELU over columns [s·chunk, (s+1)·chunk) of row m: each
    block is reduced two-pass in registers and merged into the running moments (Chan et al.), so there is no
    E[g²] − E[g]² cancellation. FINAL writes the standard deviation.
    DEGENERATE (divisor 0, N ≤ correction): the result is m2 / 0, i.e. +inf, or NaN when every g is equal (m2 is
    exactly 0 in torch). On the GPU, FMA contraction of GELU's last product into g − mean leaves m2 a rounding
    residue above 0 even for one sample, so equality is decided from the row's min and max instead."""
    m = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1)
    start = s * chunk
    end = tl.minimum(start + chunk, N)
    zero = tl.sum(tl.zeros([BLOCK], dtype=tl.float32), axis=0)
    n = zero
    mean = zero
    m2 = zero
    gmin = zero + float("inf")
    gmax = zero - float("inf")
    for k in range(start, end, BLOCK):
        cols = k + tl.arange(0, BLOCK)
        ok = cols < end
        x = tl.load(x_ptr + m * xs_m + cols.to(tl.int64) * xs_n, mask=ok, other=0.0)
        g = tl.where(ok, _gelu(x, TANH), 0.0)
        nb = tl.sum(ok.to(tl.float32), axis=0)
        mb = tl.sum(g, axis=0) / nb
        d = tl.where(ok, g - mb, 0.0)
        m2b = tl.sum(d * d, axis=0)
        tot = n + nb
        delta = mb - mean
        mean = mean + delta * (nb / tot)
        m2 = m2 + m2b + delta * delta * (n * nb / tot)
        n = tot
        if DEGENERATE:
            gmin = tl.minimum(gmin, tl.min(tl.where(ok, g, float("inf")), axis=0))
            gmax = tl.maximum(gmax, tl.max(tl.where(ok, g, -float("inf")), axis=0))
    if FINAL:
        res = tl.sqrt(m2 / denom)
        if DEGENERATE:
            res = tl.where(gmin == gmax, float("nan"), res)
        tl.store(out_ptr + m, res)
    else:
        slot = m * tl.num_programs(1) + s
        tl.store(cnt_ptr + slot, n)
        tl.store(mean_ptr + slot, mean)
        tl.store(m2_ptr + slot, m2)


@triton.jit
def _moments_combine(cnt_ptr, mean_ptr, m2_ptr, out_ptr, SPLIT, denom, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    ok = offs < SPLIT
    c = tl.load(cnt_ptr + m * SPLIT + offs, mask=ok, other=0.0)
    mu = tl.load(mean_ptr + m * SPLIT + offs, mask=ok, other=0.0)
    q = tl.load(m2_ptr + m * SPLIT + offs, mask=ok, other=0.0)
    total = tl.sum(c, axis=0)
    mean = tl.sum(c * mu, axis=0) / total
    d = mu - mean
    m2 = tl.sum(q + c * d * d, axis=0)
    tl.store(out_ptr + m, tl.sqrt(m2 / denom))


def fused_gelu_std(input, dim=None, keepdim=False, correction=1, approximate="none"):
    shape = tuple(input.shape)
    nd = len(shape)
    if dim is None:
        red = list(range(nd))
    else:
        red = sorted({d % nd for d in ((dim,) if isinstance(dim, int) else dim)}) if nd else []
    kept = [d for d in range(nd) if d not in red]
    M = math.prod(shape[d] for d in kept)
    N = math.prod(shape[d] for d in red)
    out_shape = [1 if d in red else shape[d] for d in range(nd)] if keepdim else [shape[d] for d in kept]
    out = torch.empty(out_shape, dtype=torch.float32, device=input.device)
    if M == 0:
        return out
    x = input.permute(kept + red).reshape(M, N)
    denom = float(max(0, N - correction))
    tanh = approximate == "tanh"
    BLOCK = 2048 if N >= 2048 else max(16, triton.next_power_of_2(max(N, 1)))
    degenerate = denom == 0.0  # one program per row then, which tracks the row's min and max (see the kernel)
    split = 1
    if M < 512 and N >= 8 * BLOCK and not degenerate:  # few long rows: split them so every SM gets work
        split = min(1024, max(1, 1024 // M), triton.cdiv(N, 4 * BLOCK))
    chunk = max(BLOCK, triton.cdiv(triton.cdiv(N, split), BLOCK) * BLOCK)
    split = max(1, triton.cdiv(N, chunk))
    flat = out.reshape(M)
    if split == 1:
        _gelu_moments[(M, 1)](x, flat, flat, flat, flat, N, chunk, x.stride(0), x.stride(1), denom,
                              TANH=tanh, FINAL=True, DEGENERATE=degenerate, BLOCK=BLOCK, num_warps=8)
        return out
    cnt = torch.empty((M, split), dtype=torch.float32, device=input.device)
    mean = torch.empty((M, split), dtype=torch.float32, device=input.device)
    m2 = torch.empty((M, split), dtype=torch.float32, device=input.device)
    _gelu_moments[(M, split)](x, cnt, mean, m2, flat, N, chunk, x.stride(0), x.stride(1), denom,
                              TANH=tanh, FINAL=False, DEGENERATE=False, BLOCK=BLOCK, num_warps=8)
    _moments_combine[(M,)](cnt, mean, m2, flat, split, denom, BLOCK=triton.next_power_of_2(split), num_warps=4)
    return out
