import math

import torch
import triton
import triton.language as tl


@triton.jit
def _sum_kernel(x_ptr, y_ptr, R, inner, r_chunk, n_inner_blocks,
                ACC_FP64: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    """x viewed as (outer, R, inner); program (o·n_inner_blocks + ib, s) sums rows [s·r_chunk, (s+1)·r_chunk)
    of its inner block and writes y[o, s, inner block] (y viewed as (outer, n_splits, inner))."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    o = (pid // n_inner_blocks).to(tl.int64)
    ib = pid % n_inner_blocks
    cols = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    r_start = split * r_chunk
    r_end = tl.minimum(r_start + r_chunk, R)
    base = x_ptr + o * R * inner
    if ACC_FP64:
        acc = tl.zeros((BLOCK_R, BLOCK_I), dtype=tl.float64)
    else:
        acc = tl.zeros((BLOCK_R, BLOCK_I), dtype=tl.float32)
    # a while loop: `for` over a runtime bound breaks the Triton interpreter under numpy >= 2.4
    r0 = r_start
    while r0 < r_end:
        rows = r0 + tl.arange(0, BLOCK_R)
        mask = (rows < r_end)[:, None] & col_mask[None, :]
        offs = rows.to(tl.int64)[:, None] * inner + cols[None, :]
        acc += tl.load(base + offs, mask=mask, other=0.0).to(acc.dtype)
        r0 += BLOCK_R
    total = tl.sum(acc, axis=0)
    out = y_ptr + (o * n_splits + split) * inner + cols
    tl.store(out, total.to(y_ptr.dtype.element_ty), mask=col_mask)


def _reduce_middle(x, outer, R, inner, out_dtype):
    """Sum of x viewed as (outer, R, inner) over R, as a flat (outer·inner,) tensor of out_dtype."""
    acc64 = out_dtype == torch.float64
    block_i = min(triton.next_power_of_2(max(inner, 1)), 64)
    block_r = max(16, 2048 // block_i)
    n_inner_blocks = triton.cdiv(inner, block_i)
    programs = outer * n_inner_blocks
    splits = 1
    if programs < 512 and R > 4 * block_r:
        splits = min(triton.cdiv(R, block_r), max(1, 1024 // programs))
    r_chunk = triton.cdiv(triton.cdiv(R, splits), block_r) * block_r
    splits = triton.cdiv(R, r_chunk) if R > 0 else 1
    if splits == 1:
        out = torch.empty(outer * inner, dtype=out_dtype, device=x.device)
        _sum_kernel[(programs, 1)](x, out, R, inner, max(r_chunk, 1), n_inner_blocks,
                                   ACC_FP64=acc64, BLOCK_R=block_r, BLOCK_I=block_i)
        return out
    acc_dtype = torch.float64 if acc64 else torch.float32
    partial = torch.empty(outer * splits * inner, dtype=acc_dtype, device=x.device)
    _sum_kernel[(programs, splits)](x, partial, R, inner, r_chunk, n_inner_blocks,
                                    ACC_FP64=acc64, BLOCK_R=block_r, BLOCK_I=block_i)
    return _reduce_middle(partial, outer, splits, inner, out_dtype)


def sum(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    x = input if input.is_contiguous() else input.contiguous()
    out_dtype = dtype if dtype is not None else input.dtype
    shape = list(input.shape)
    if dim is None:
        out = _reduce_middle(x, 1, x.numel(), 1, out_dtype)
        return out.view([1] * len(shape) if keepdim else [])
    d = dim % max(len(shape), 1)
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    out = _reduce_middle(x, outer, shape[d] if shape else 1, inner, out_dtype)
    out_shape = shape[:d] + ([1] if keepdim else []) + shape[d + 1:]
    return out.view(out_shape)
