import math

import torch
import triton
import triton.language as tl

SINGLE_MAX = 16384  # slices up to this length are normalized from registers: one read, one write


@triton.jit
def _softmax_rows_kernel(x_ptr, y_ptr, R, D, BLOCK_D: tl.constexpr, ROWS: tl.constexpr, SINGLE: tl.constexpr):
    # softmax over the last (contiguous) dim; one program normalizes ROWS rows
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < R
    base = rows.to(tl.int64) * D
    dtype = y_ptr.dtype.element_ty
    if SINGLE:
        cols = tl.arange(0, BLOCK_D)
        ok = row_ok[:, None] & (cols < D)[None, :]
        x = tl.load(x_ptr + base[:, None] + cols[None, :], mask=ok, other=float("-inf")).to(dtype)
        m = tl.max(x, axis=1)
        m = tl.where(m == float("-inf"), 0.0, m)  # a row of -inf: every e is 0 and 0/0 gives NaN, as in torch
        e = tl.exp(x - m[:, None])
        s = tl.sum(e, axis=1)
        tl.store(y_ptr + base[:, None] + cols[None, :], e / s[:, None], mask=ok)
    else:
        m = tl.full([ROWS], float("-inf"), dtype)
        s = tl.zeros([ROWS], dtype)
        for d0 in range(0, D, BLOCK_D):  # pass 1: running maximum and rescaled sum (online softmax)
            cols = d0 + tl.arange(0, BLOCK_D)
            ok = row_ok[:, None] & (cols < D)[None, :]
            x = tl.load(x_ptr + base[:, None] + cols[None, :], mask=ok, other=float("-inf")).to(dtype)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # blocks of -inf so far contribute nothing
            s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
            m = m_new
        m = tl.where(m == float("-inf"), 0.0, m)
        for d0 in range(0, D, BLOCK_D):  # pass 2: normalize
            cols = d0 + tl.arange(0, BLOCK_D)
            ok = row_ok[:, None] & (cols < D)[None, :]
            offs = base[:, None] + cols[None, :]
            x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
            tl.store(y_ptr + offs, tl.exp(x - m[:, None]) / s[:, None], mask=ok)


@triton.jit
def _softmax_inner_kernel(x_ptr, y_ptr, D, inner, n_ib, BLOCK_D: tl.constexpr, BLOCK_I: tl.constexpr,
                          SINGLE: tl.constexpr):
    # the tensor viewed as (outer, D, inner): one program normalizes BLOCK_I neighbouring slices, reading tiles
    # of BLOCK_D × BLOCK_I (contiguous along inner)
    pid = tl.program_id(0)
    o = pid // n_ib
    cols = (pid % n_ib) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_ok = cols < inner
    base = o.to(tl.int64) * D * inner
    dtype = y_ptr.dtype.element_ty
    if SINGLE:
        d = tl.arange(0, BLOCK_D)
        ok = (d < D)[:, None] & col_ok[None, :]
        offs = base + d[:, None].to(tl.int64) * inner + cols[None, :]
        x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
        m = tl.max(x, axis=0)
        m = tl.where(m == float("-inf"), 0.0, m)
        e = tl.exp(x - m[None, :])
        s = tl.sum(e, axis=0)
        tl.store(y_ptr + offs, e / s[None, :], mask=ok)
    else:
        m = tl.full([BLOCK_I], float("-inf"), dtype)
        s = tl.zeros([BLOCK_I], dtype)
        for d0 in range(0, D, BLOCK_D):
            d = d0 + tl.arange(0, BLOCK_D)
            ok = (d < D)[:, None] & col_ok[None, :]
            offs = base + d[:, None].to(tl.int64) * inner + cols[None, :]
            x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[None, :]), axis=0)
            m = m_new
        m = tl.where(m == float("-inf"), 0.0, m)
        for d0 in range(0, D, BLOCK_D):
            d = d0 + tl.arange(0, BLOCK_D)
            ok = (d < D)[:, None] & col_ok[None, :]
            offs = base + d[:, None].to(tl.int64) * inner + cols[None, :]
            x = tl.load(x_ptr + offs, mask=ok, other=float("-inf")).to(dtype)
            tl.store(y_ptr + offs, tl.exp(x - m[None, :]) / s[None, :], mask=ok)


def softmax(input: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=dtype or x.dtype, device=x.device)
    if x.numel() == 0:
        return y
    dim = dim % max(x.dim(), 1)
    D = x.shape[dim] if x.dim() else 1
    outer = math.prod(x.shape[:dim])
    inner = math.prod(x.shape[dim + 1:])
    if inner == 1:
        single = D <= SINGLE_MAX
        BLOCK_D = triton.next_power_of_2(D) if single else 4096
        ROWS = max(1, min(64, 2048 // BLOCK_D)) if single else 1
        warps = 16 if BLOCK_D * ROWS >= 16384 else (8 if BLOCK_D * ROWS >= 4096 else 4)
        _softmax_rows_kernel[(triton.cdiv(outer, ROWS),)](x, y, outer, D, BLOCK_D=BLOCK_D, ROWS=ROWS, SINGLE=single,
                                                         num_warps=warps)
        return y
    BLOCK_I = min(triton.next_power_of_2(inner), 16)
    single = triton.next_power_of_2(D) * BLOCK_I <= 8192
    BLOCK_D = triton.next_power_of_2(D) if single else max(1, 2048 // BLOCK_I)
    n_ib = triton.cdiv(inner, BLOCK_I)
    warps = 8 if BLOCK_D * BLOCK_I >= 4096 else 4
    _softmax_inner_kernel[(outer * n_ib,)](x, y, D, inner, n_ib, BLOCK_D=BLOCK_D, BLOCK_I=BLOCK_I, SINGLE=single,
                                           num_warps=warps)
    return y
