import math

import torch
import triton
import triton.language as tl

BIG = tl.constexpr(2**62)  # "no index yet"; larger than any real index


@triton.jit
def _min_kernel(x_ptr, xi_ptr, v_ptr, i_ptr, R, inner, r_chunk, n_inner_blocks,
                HAS_IDX: tl.constexpr, GELU: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    """x viewed as (outer, R, inner). Program (o·n_inner_blocks + ib, s) finds, for each column of its inner block,
    the minimum of GELU(x) (GELU = 1: erf form, 2: tanh form, 0: x itself, for later passes) over rows [s·r_chunk, (s+1)·r_chunk): NaN beats everything, ties go to the smallest index. Indices
    are the row numbers, or (HAS_IDX) read from xi (a previous pass's partial indices). Writes v/i as
    (outer, n_splits, inner)."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    o = (pid // n_inner_blocks).to(tl.int64)
    ib = pid % n_inner_blocks
    cols = ib * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < inner
    r_start = split * r_chunk
    r_end = tl.minimum(r_start + r_chunk, R)
    base = o * R * inner
    best_val = tl.full((BLOCK_I,), float("inf"), tl.float32)
    best_idx = tl.full((BLOCK_I,), BIG, tl.int64)
    nan_idx = tl.full((BLOCK_I,), BIG, tl.int64)
    r0 = r_start
    while r0 < r_end:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        rows = r0 + tl.arange(0, BLOCK_R)
        mask = (rows < r_end)[:, None] & col_mask[None, :]
        offs = base + rows.to(tl.int64)[:, None] * inner + cols[None, :]
        v = tl.load(x_ptr + offs, mask=mask, other=float("inf")).to(tl.float32)
        if GELU == 1:
            v = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
        elif GELU == 2:
            z = 0.7978845608028654 * (v + 0.044715 * v * v * v)
            t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)  # tanh(z); ±1 at ±inf, so GELU(-inf) = -inf·0 = NaN
            v = 0.5 * v * (1.0 + t)
        if HAS_IDX:
            idx = tl.load(xi_ptr + offs, mask=mask, other=BIG)
        else:
            idx = tl.broadcast_to(rows.to(tl.int64)[:, None], (BLOCK_R, BLOCK_I))
        is_nan = v != v
        nan_idx = tl.minimum(nan_idx, tl.min(tl.where(is_nan & mask, idx, BIG), axis=0))
        ok = mask & (v == v)
        vv = tl.where(ok, v, float("inf"))
        tile_min = tl.min(vv, axis=0)
        tile_idx = tl.min(tl.where(ok & (vv == tile_min[None, :]), idx, BIG), axis=0)
        take = (tile_idx != BIG) & ((tile_min < best_val) | ((tile_min == best_val) & (tile_idx < best_idx)))
        best_val = tl.where(take, tile_min, best_val)
        best_idx = tl.where(take, tile_idx, best_idx)
        r0 += BLOCK_R
    has_nan = nan_idx != BIG
    out_val = tl.where(has_nan, float("nan"), best_val)
    out_idx = tl.where(has_nan, nan_idx, best_idx)
    out = (o * n_splits + split) * inner + cols
    tl.store(v_ptr + out, out_val, mask=col_mask)
    tl.store(i_ptr + out, out_idx, mask=col_mask)


def _min_middle(x, xi, outer, R, inner, gelu=0):
    """(values, indices) of the min of GELU(x) viewed as (outer, R, inner) over R, each flat (outer·inner,)."""
    block_i = min(triton.next_power_of_2(max(inner, 1)), 64)
    block_r = max(16, 2048 // block_i)
    n_inner_blocks = triton.cdiv(inner, block_i)
    programs = outer * n_inner_blocks
    splits = 1
    if programs < 512 and R > 4 * block_r:
        splits = min(triton.cdiv(R, block_r), max(1, 1024 // programs))
    r_chunk = triton.cdiv(triton.cdiv(R, splits), block_r) * block_r
    splits = triton.cdiv(R, r_chunk)
    vals = torch.empty(outer * splits * inner, dtype=torch.float32, device=x.device)
    idxs = torch.empty(outer * splits * inner, dtype=torch.int64, device=x.device)
    _min_kernel[(programs, splits)](x, xi if xi is not None else idxs, vals, idxs, R, inner, r_chunk,
                                    n_inner_blocks, HAS_IDX=xi is not None, GELU=gelu, BLOCK_R=block_r, BLOCK_I=block_i)
    if splits == 1:
        return vals, idxs
    return _min_middle(vals, idxs, outer, splits, inner)


def min_gelu(input: torch.Tensor, dim=None, keepdim: bool = False, approximate: str = "none"):
    x = input if input.is_contiguous() else input.contiguous()
    gelu = 2 if approximate == "tanh" else 1
    shape = list(input.shape)
    if dim is None:
        vals, _ = _min_middle(x, None, 1, x.numel(), 1, gelu)
        return vals.to(input.dtype).view([])
    d = dim % max(len(shape), 1)
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    vals, idx = _min_middle(x, None, outer, shape[d] if shape else 1, inner, gelu)
    out_shape = shape[:d] + ([1] if keepdim else []) + shape[d + 1:]
    return vals.to(input.dtype).view(out_shape), idx.view(out_shape)
