import torch
import triton
import triton.language as tl

# softmax(log x) = x / Σx for x ≥ 0, computed as (x / max) / Σ(x / max) so that nothing overflows; a slice
# with a negative, NaN or +inf entry is NaN throughout (as log then softmax gives), an all-zero slice is 0/0.
# The input is viewed as (outer, N, inner) with the softmax over N; a program takes one outer index and a block
# of inner indices, so a softmax over a leading dimension still reads memory along the contiguous inner axis.


@triton.jit
def softmax_log_kernel(x_ptr, y_ptr, N, inner, n_ib, sxo, sxn, sxi,
                       F64: tl.constexpr, SINGLE: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    o = pid // n_ib
    ib = pid % n_ib
    ii = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = ii < inner
    x_base = x_ptr + o * sxo + ii * sxi
    y_base = y_ptr + o * N * inner + ii
    cols = tl.arange(0, BLOCK_N)
    if SINGLE:
        ok = i_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_base[:, None] + cols[None, :].to(tl.int64) * sxn, mask=ok, other=0.0)
        if F64:
            x = x.to(tl.float64)
        bad = tl.max(((x < 0) | (x != x) | (x == float("inf"))).to(tl.int32), axis=1)
        m = tl.max(x, axis=1)
        q = x / m[:, None]
        r = 1.0 / tl.sum(tl.where(ok, q, 0.0), axis=1)
        y = q * r[:, None]
        y = tl.where(bad[:, None] != 0, float("nan"), y)
        tl.store(y_base[:, None] + cols[None, :].to(tl.int64) * inner, y, mask=ok)
    else:
        if F64:
            m = tl.zeros((BLOCK_I,), dtype=tl.float64)
            s = tl.zeros((BLOCK_I,), dtype=tl.float64)
        else:
            m = tl.zeros((BLOCK_I,), dtype=tl.float32)
            s = tl.zeros((BLOCK_I,), dtype=tl.float32)
        bad = tl.zeros((BLOCK_I,), dtype=tl.int32)
        for n0 in range(0, N, BLOCK_N):
            cn = n0 + cols
            ok = i_ok[:, None] & (cn < N)[None, :]
            x = tl.load(x_base[:, None] + cn[None, :].to(tl.int64) * sxn, mask=ok, other=0.0)
            if F64:
                x = x.to(tl.float64)
            bad = tl.maximum(bad, tl.max(((x < 0) | (x != x) | (x == float("inf"))).to(tl.int32), axis=1))
            m_new = tl.maximum(m, tl.max(x, axis=1))
            pos = m_new > 0
            safe = tl.where(pos, m_new, 1.0)
            s = tl.where(pos, s * (m / safe) + tl.sum(x / safe[:, None], axis=1), 0.0)
            m = m_new
        r = 1.0 / s
        for n0 in range(0, N, BLOCK_N):
            cn = n0 + cols
            ok = i_ok[:, None] & (cn < N)[None, :]
            x = tl.load(x_base[:, None] + cn[None, :].to(tl.int64) * sxn, mask=ok, other=0.0)
            if F64:
                x = x.to(tl.float64)
            y = (x / m[:, None]) * r[:, None]
            y = tl.where(bad[:, None] != 0, float("nan"), y)
            tl.store(y_base[:, None] + cn[None, :].to(tl.int64) * inner, y, mask=ok)


def fused_softmax_log(input, dim=-1, dtype=None):
    out_dtype = dtype if dtype is not None else input.dtype
    shape = tuple(input.shape)
    d = dim % max(len(shape), 1)
    outer = 1
    for s in shape[:d]:
        outer *= s
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    N = shape[d] if shape else 1
    y = torch.empty(shape, dtype=out_dtype, device=input.device)
    if y.numel() == 0:
        return y
    x3 = input.reshape(outer, N, inner)
    f64 = out_dtype == torch.float64
    BLOCK_I = 1 if inner == 1 else min(32, triton.next_power_of_2(inner))
    cap = (4096 if f64 else 8192) // BLOCK_I
    single = N <= cap
    BLOCK_N = triton.next_power_of_2(N) if single else min(cap, 4096)
    n_ib = triton.cdiv(inner, BLOCK_I)
    softmax_log_kernel[(outer * n_ib,)](x3, y, N, inner, n_ib, *x3.stride(), F64=f64, SINGLE=single,
                                        BLOCK_I=BLOCK_I, BLOCK_N=BLOCK_N,
                                        num_warps=8 if BLOCK_I * BLOCK_N >= 4096 else 4)
    return y
