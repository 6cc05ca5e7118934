import math

import torch
import triton
import triton.language as tl


@triton.jit
def _sum_kernel(x_ptr, y_ptr, R, inner, r_chunk, n_inner_blocks, scale,
                ACC_FP64: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    """x viewed as (outer, R, inner); program (o·n_inner_blocks + ib, s) sums rows [s·r_chunk, (s+1)·r_chunk)
    of its inner block, multiplies by `scale` and writes y[o, s, inner block] (y viewed as (outer, n_splits,
    inner))."""
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
    total = tl.sum(acc, axis=0) * scale
    out = y_ptr + (o * n_splits + split) * inner + cols
    tl.store(out, total.to(y_ptr.dtype.element_ty), mask=col_mask)


def _reduce_middle(x, outer, R, inner, out_dtype, scale=1.0):
    """scale · (sum of x viewed as (outer, R, inner) over R), as a flat (outer·inner,) tensor of out_dtype."""
    acc64 = out_dtype == torch.float64
    if outer * inner == 0:
        return torch.empty(0, dtype=out_dtype, device=x.device)
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
        _sum_kernel[(programs, 1)](x, out, R, inner, max(r_chunk, 1), n_inner_blocks, scale,
                                   ACC_FP64=acc64, BLOCK_R=block_r, BLOCK_I=block_i)
        return out
    acc_dtype = torch.float64 if acc64 else torch.float32
    partial = torch.empty(outer * splits * inner, dtype=acc_dtype, device=x.device)
    _sum_kernel[(programs, splits)](x, partial, R, inner, r_chunk, n_inner_blocks, 1.0,
                                    ACC_FP64=acc64, BLOCK_R=block_r, BLOCK_I=block_i)
    return _reduce_middle(partial, outer, splits, inner, out_dtype, scale)


def _as_three_dims(input, dim):
    """(x, outer, R, inner, reduced dims): x contiguous with the reduced dims forming the middle of
    (outer, R, inner) — in place when they are adjacent, else after moving them last."""
    shape = list(input.shape)
    nd = len(shape)
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % max(nd, 1)] if nd else []
    else:
        dims = sorted({d % max(nd, 1) for d in dim}) if nd else []
    if not dims:
        return input.contiguous(), max(math.prod(shape), 1), 1, 1, dims
    if dims == list(range(dims[0], dims[-1] + 1)):
        x = input if input.is_contiguous() else input.contiguous()
        return (x, math.prod(shape[:dims[0]]), math.prod(shape[dims[0]:dims[-1] + 1]),
                math.prod(shape[dims[-1] + 1:]), dims)
    kept = [d for d in range(nd) if d not in dims]
    x = input.permute(*kept, *dims).contiguous()
    return x, math.prod(shape[d] for d in kept), math.prod(shape[d] for d in dims), 1, dims


def _out_shape(shape, dims, keepdim):
    if keepdim:
        return [1 if d in dims else s for d, s in enumerate(shape)]
    return [s for d, s in enumerate(shape) if d not in dims]


def mean(input: torch.Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> torch.Tensor:
    out_dtype = dtype if dtype is not None else input.dtype
    x, outer, R, inner, dims = _as_three_dims(input, dim)
    scale = 1.0 / R if R > 0 else float("nan")  # the mean over an empty dimension is NaN
    out = _reduce_middle(x, outer, R, inner, out_dtype, scale)
    return out.view(_out_shape(list(input.shape), dims, keepdim))
