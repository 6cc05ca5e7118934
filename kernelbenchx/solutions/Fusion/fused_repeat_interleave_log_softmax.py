import math

import torch
import triton
import triton.language as tl

# The repeated tensor is never materialized: the log-sum-exp over the repeated axis is Σ_n r_n·exp(x_n − m)
# over the input, and each output position j reads its source element n (j // r for an int, a binary search
# of the exclusive prefix sums of tensor repeats). The input is viewed as (outer, N, inner); rows (outer,
# inner pairs) are reduced in splits over N (partial max and sum), merged per row, then the output is written.


@triton.jit
def starts_kernel(r_ptr, st_ptr, N, r_stride, CHUNK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int64)
    for base in range(0, N, CHUNK):
        idx = base + tl.arange(0, CHUNK)
        r = tl.load(r_ptr + idx.to(tl.int64) * r_stride, mask=idx < N, other=0).to(tl.int64)
        inclusive = tl.cumsum(r, axis=0)
        tl.store(st_ptr + idx, carry + inclusive - r, mask=idx < N)
        carry += tl.sum(r, axis=0)
    tl.store(st_ptr + N, carry)


@triton.jit
def stats_kernel(x_ptr, r_ptr, pm_ptr, ps_ptr, N, inner, n_ib, rows, n_per_split, sxo, sxn, sxi,
                 r_scalar, r_stride, R_TENSOR: tl.constexpr, F64: tl.constexpr,
                 BLOCK_I: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    split = tl.program_id(1).to(tl.int64)
    o = pid // n_ib
    ii = (pid % n_ib) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = ii < inner
    base = x_ptr + o * sxo + ii * sxi
    cols = tl.arange(0, BLOCK_N)
    if F64:
        m = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float64)
        s = tl.zeros((BLOCK_I,), dtype=tl.float64)
    else:
        m = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float32)
        s = tl.zeros((BLOCK_I,), dtype=tl.float32)
    n_start = split * n_per_split
    for n0 in range(0, n_per_split, BLOCK_N):
        cn = n_start + n0 + cols
        n_ok = (cn < N) & ((n0 + cols) < n_per_split)
        if R_TENSOR:
            w = tl.load(r_ptr + cn * r_stride, mask=n_ok, other=0).to(m.dtype)
        else:
            w = tl.where(n_ok, r_scalar, 0).to(m.dtype)
        keep = i_ok[:, None] & (n_ok & (w > 0))[None, :]
        x = tl.load(base[:, None] + cn[None, :] * sxn, mask=keep, other=float("-inf")).to(m.dtype)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        e = tl.where(keep, w[None, :] * tl.exp(x - safe[:, None]), 0.0)
        s = s * tl.exp(m - safe) + tl.sum(e, axis=1)
        m = m_new
    row = o * inner + ii
    tl.store(pm_ptr + split * rows + row, m, mask=i_ok)
    tl.store(ps_ptr + split * rows + row, s, mask=i_ok)


@triton.jit
def lse_kernel(pm_ptr, ps_ptr, mx_ptr, ls_ptr, rows, n_split, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = r < rows
    m = tl.load(pm_ptr + r, mask=ok, other=0.0)
    for k in range(1, n_split):
        m = tl.maximum(m, tl.load(pm_ptr + k * rows + r, mask=ok, other=0.0))
    safe = tl.where(m == float("-inf"), 0.0, m)
    s = tl.zeros((BLOCK,), dtype=m.dtype)
    for k in range(0, n_split):
        mk = tl.load(pm_ptr + k * rows + r, mask=ok, other=0.0)
        s += tl.load(ps_ptr + k * rows + r, mask=ok, other=0.0) * tl.exp(mk - safe)
    # the max and log Σ kept apart: y = (x − max) − log Σ, as torch, since max + log Σ rounded to one float
    # loses the low bits of log Σ when |max| is large
    tl.store(mx_ptr + r, safe, mask=ok)
    tl.store(ls_ptr + r, tl.log(s), mask=ok)


@triton.jit
def write_kernel(x_ptr, st_ptr, mx_ptr, ls_ptr, y_ptr, N, L, inner, n_ib, sxo, sxn, sxi, r_scalar, n_steps,
                 R_TENSOR: tl.constexpr, F64: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    o = pid // n_ib
    ii = (pid % n_ib) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = ii < inner
    j = tl.program_id(1).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    j_ok = j < L
    if R_TENSOR:  # largest n with starts[n] <= j: the element whose copies cover position j
        lo = tl.zeros((BLOCK_J,), dtype=tl.int64)
        hi = tl.zeros((BLOCK_J,), dtype=tl.int64) + N
        for _ in range(0, n_steps):
            mid = (lo + hi) // 2
            v = tl.load(st_ptr + mid, mask=j_ok & (hi - lo > 1), other=0)
            right = v <= j
            lo = tl.where((hi - lo > 1) & right, mid, lo)
            hi = tl.where((hi - lo > 1) & (v > j), mid, hi)
        src = lo
    else:
        src = j // r_scalar
    ok = i_ok[:, None] & j_ok[None, :]
    x = tl.load(x_ptr + o * sxo + ii[:, None] * sxi + src[None, :] * sxn, mask=ok, other=0.0)
    mx = tl.load(mx_ptr + o * inner + ii, mask=i_ok, other=0.0)
    ls = tl.load(ls_ptr + o * inner + ii, mask=i_ok, other=0.0)
    if F64:
        y = (x.to(tl.float64) - mx[:, None]) - ls[:, None]
    else:
        y = (x - mx[:, None]) - ls[:, None]
    tl.store(y_ptr + o * L * inner + j[None, :] * inner + ii[:, None], y, mask=ok)


def fused_repeat_interleave_log_softmax(input, repeats, dim=None, *, output_size=None, dtype=None):
    out_dtype = dtype if dtype is not None else input.dtype
    f64 = out_dtype == torch.float64
    acc_dtype = torch.float64 if f64 else torch.float32
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        x = input
        d = dim % x.dim()
    shape = tuple(x.shape)
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    N = shape[d]
    dev = input.device
    r_tensor = isinstance(repeats, torch.Tensor)
    if r_tensor and repeats.numel() == 1 and repeats.dim() == 0:
        r_tensor = False
        repeats = int(repeats.item())
    if r_tensor:
        starts = torch.empty(N + 1, dtype=torch.int64, device=dev)
        starts_kernel[(1,)](repeats, starts, N, repeats.stride(0) if repeats.dim() else 0, CHUNK=1024)
        L = int(output_size) if output_size is not None else int(starts[N].item())
        r_arg, r_stride, r_scalar = repeats, repeats.stride(0), 1
    else:
        starts = torch.empty(1, dtype=torch.int64, device=dev)
        L = N * int(repeats)
        r_arg, r_stride, r_scalar = starts, 0, int(repeats)
    y = torch.empty(shape[:d] + (L,) + shape[d + 1:], dtype=out_dtype, device=dev)
    if y.numel() == 0:
        return y
    x3 = x.reshape(outer, N, inner)
    rows = outer * inner
    BLOCK_I = 1 if inner == 1 else min(16, triton.next_power_of_2(inner))
    BLOCK_N = max(16, min(2048 // BLOCK_I, triton.next_power_of_2(N)))
    n_ib = triton.cdiv(inner, BLOCK_I)
    n_blocks = triton.cdiv(N, BLOCK_N)
    n_split = max(1, min(n_blocks, triton.cdiv(2048, outer * n_ib)))
    n_per_split = triton.cdiv(n_blocks, n_split) * BLOCK_N
    n_split = triton.cdiv(N, n_per_split)
    pm = torch.empty((n_split, rows), dtype=acc_dtype, device=dev)
    ps = torch.empty((n_split, rows), dtype=acc_dtype, device=dev)
    mx = torch.empty(rows, dtype=acc_dtype, device=dev)
    ls = torch.empty(rows, dtype=acc_dtype, device=dev)
    stats_kernel[(outer * n_ib, n_split)](x3, r_arg, pm, ps, N, inner, n_ib, rows, n_per_split, *x3.stride(),
                                          r_scalar, r_stride, R_TENSOR=r_tensor, F64=f64,
                                          BLOCK_I=BLOCK_I, BLOCK_N=BLOCK_N, num_warps=4)
    lse_kernel[(triton.cdiv(rows, 256),)](pm, ps, mx, ls, rows, n_split, BLOCK=256)
    BLOCK_J = max(16, min(2048 // BLOCK_I, triton.next_power_of_2(L)))
    n_steps = max(1, (N + 1).bit_length())
    write_kernel[(outer * n_ib, triton.cdiv(L, BLOCK_J))](x3, starts, mx, ls, y, N, L, inner, n_ib, *x3.stride(),
                                                          r_scalar, n_steps, R_TENSOR=r_tensor, F64=f64,
                                                          BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J, num_warps=4)
    return y
