import math

import torch
import triton
import triton.language as tl


@triton.jit
def _stats_kernel(x_ptr, cnt_ptr, mean_ptr, m2_ptr, R, inner, r_chunk, n_inner_blocks,
                  BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    """x viewed as (outer, R, inner); program (o·n_inner_blocks + ib, s) reduces rows [s·r_chunk, (s+1)·r_chunk)
    of its inner block to (count, mean, M2) per column, in one read: each tile's own mean and M2 (exact two
    passes over registers) are merged into the running ones with Chan's formula."""
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
    n_a = tl.zeros((BLOCK_I,), dtype=tl.float32)
    mean_a = tl.zeros((BLOCK_I,), dtype=tl.float32)
    m2_a = tl.zeros((BLOCK_I,), dtype=tl.float32)
    r0 = r_start
    while r0 < r_end:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        rows = r0 + tl.arange(0, BLOCK_R)
        row_ok = rows < r_end
        mask = row_ok[:, None] & col_mask[None, :]
        offs = rows.to(tl.int64)[:, None] * inner + cols[None, :]
        x = tl.load(base + offs, mask=mask, other=0.0).to(tl.float32)
        n_b = tl.sum(row_ok.to(tl.float32), axis=0)
        mean_b = tl.sum(x, axis=0) / n_b
        d = tl.where(mask, x - mean_b[None, :], 0.0)
        m2_b = tl.sum(d * d, axis=0)
        n_ab = n_a + n_b
        delta = mean_b - mean_a
        frac = n_b / n_ab
        mean_a = mean_a + delta * frac
        m2_a = m2_a + m2_b + delta * delta * n_a * frac
        n_a = n_ab
        r0 += BLOCK_R
    out = (o * n_splits + split) * inner + cols
    tl.store(cnt_ptr + out, n_a, mask=col_mask)
    tl.store(mean_ptr + out, mean_a, mask=col_mask)
    tl.store(m2_ptr + out, m2_a, mask=col_mask)


@triton.jit
def _finalize_kernel(cnt_ptr, mean_ptr, m2_ptr, y_ptr, total, inner, n_splits, correction, BLOCK: tl.constexpr):
    """Merges each output's n_splits partial (count, mean, M2) (Chan) and writes sqrt(M2 / max(0, n − corr))."""
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = idx < total
    o = idx // inner
    c = idx % inner
    n_a = tl.zeros((BLOCK,), dtype=tl.float32)
    mean_a = tl.zeros((BLOCK,), dtype=tl.float32)
    m2_a = tl.zeros((BLOCK,), dtype=tl.float32)
    s = 0
    while s < n_splits:
        at = (o * n_splits + s) * inner + c
        n_b = tl.load(cnt_ptr + at, mask=ok, other=0.0)
        mean_b = tl.load(mean_ptr + at, mask=ok, other=0.0)
        m2_b = tl.load(m2_ptr + at, mask=ok, other=0.0)
        n_ab = n_a + n_b
        delta = mean_b - mean_a
        frac = tl.where(n_ab > 0, n_b / n_ab, 0.0)
        mean_a = mean_a + delta * frac
        m2_a = m2_a + m2_b + delta * delta * n_a * frac
        n_a = n_ab
        s += 1
    dof = tl.maximum(n_a - correction, 0.0)
    var = m2_a / dof  # dof = 0: +inf, or NaN when M2 = 0 (as torch)
    tl.store(y_ptr + idx, tl.sqrt(var).to(y_ptr.dtype.element_ty), mask=ok)


@triton.jit
def _stats_last_kernel(x_ptr, cnt_ptr, mean_ptr, m2_ptr, n_rows, R, r_chunk, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    """x viewed as (n_rows, R), reducing the contiguous last dim. Program (b, s) reduces columns
    [s·r_chunk, (s+1)·r_chunk) of rows [b·ROWS, (b+1)·ROWS) to (count, mean, M2), streaming ROWS × BLOCK tiles
    along the row (coalesced, vectorized loads): each lane runs Welford over its own columns (full tiles give
    every lane the same count k, so the update scales by the scalar 1/k), the masked tail tile updates only its
    live lanes, and the lanes are merged once at the end with the exact parallel formula."""
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    c_start = split * r_chunk
    c_end = tl.minimum(c_start + r_chunk, R)
    ptrs = x_ptr + rows[:, None] * R + (c_start + tl.arange(0, BLOCK))[None, :]
    mean = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    m2 = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    n_full = (c_end - c_start) // BLOCK
    k = 0
    while k < n_full:  # not `for`: a runtime-bound `for` breaks the interpreter under numpy >= 2.4
        x = tl.load(ptrs + k * BLOCK, mask=row_mask[:, None], other=0.0).to(tl.float32)
        k += 1
        delta = x - mean
        mean = mean + delta * (1.0 / (k * 1.0))  # k * 1.0, not k.to(): k is a Python int in the interpreter
        m2 = m2 + delta * (x - mean)
    cols = c_start + n_full * BLOCK + tl.arange(0, BLOCK)
    live = row_mask[:, None] & (cols < c_end)[None, :]
    x = tl.load(x_ptr + rows[:, None] * R + cols[None, :], mask=live, other=0.0).to(tl.float32)
    cnt = tl.where(live, n_full + 1, n_full).to(tl.float32)
    delta = x - mean
    mean = tl.where(live, mean + delta / cnt, mean)
    m2 = tl.where(live, m2 + delta * (x - mean), m2)
    n = tl.sum(cnt, axis=1)
    mu = tl.sum(cnt * mean, axis=1) / n  # n = 0 (empty dim): NaN, as the result must be
    d = mean - mu[:, None]
    out = rows * n_splits + split
    tl.store(cnt_ptr + out, n, mask=row_mask)
    tl.store(mean_ptr + out, mu, mask=row_mask)
    tl.store(m2_ptr + out, tl.sum(m2, axis=1) + tl.sum(cnt * d * d, axis=1), mask=row_mask)


@triton.jit
def _finalize_rows_kernel(cnt_ptr, mean_ptr, m2_ptr, y_ptr, n_splits, correction, BLOCK_S: tl.constexpr):
    """Program r merges row r's n_splits ≤ BLOCK_S partial (count, mean, M2) at once with the exact parallel
    formula and writes sqrt(M2 / max(0, n − corr))."""
    row = tl.program_id(0).to(tl.int64)
    s = tl.arange(0, BLOCK_S)
    ok = s < n_splits
    n_b = tl.load(cnt_ptr + row * n_splits + s, mask=ok, other=0.0)
    mean_b = tl.load(mean_ptr + row * n_splits + s, mask=ok, other=0.0)
    m2_b = tl.load(m2_ptr + row * n_splits + s, mask=ok, other=0.0)
    n = tl.sum(n_b, axis=0)
    mu = tl.sum(n_b * mean_b, axis=0) / n
    d = mean_b - mu
    m2 = tl.sum(m2_b, axis=0) + tl.sum(n_b * d * d, axis=0)
    var = m2 / tl.maximum(n - correction, 0.0)  # dof = 0: +inf, or NaN when M2 = 0 (as torch)
    tl.store(y_ptr + row, tl.sqrt(var).to(y_ptr.dtype.element_ty))


def _std_last(x, y, n_rows, R, correction):
    """y[r] = std of row r of x viewed as (n_rows, R), reducing its contiguous last dim."""
    block = min(triton.next_power_of_2(max(R, 1)), 4096)
    rows = min(max(1, 4096 // block), triton.next_power_of_2(n_rows))
    programs = triton.cdiv(n_rows, rows)
    splits = 1
    if programs < 264 and R > 4 * block:
        splits = min(triton.cdiv(R, block), max(1, 1024 // programs))
    r_chunk = max(triton.cdiv(triton.cdiv(R, splits), block) * block, 1)
    splits = max(triton.cdiv(R, r_chunk), 1)
    cnt = torch.empty(n_rows * splits, dtype=torch.float32, device=x.device)
    mean = torch.empty_like(cnt)
    m2 = torch.empty_like(cnt)
    _stats_last_kernel[(programs, splits)](x, cnt, mean, m2, n_rows, R, r_chunk, ROWS=rows, BLOCK=block,
                                           num_warps=8 if rows * block >= 4096 else 4)
    if splits == 1:
        BLOCK = 256
        _finalize_kernel[(triton.cdiv(n_rows, BLOCK),)](cnt, mean, m2, y, n_rows, 1, 1, float(correction),
                                                        BLOCK=BLOCK)
    else:
        _finalize_rows_kernel[(n_rows,)](cnt, mean, m2, y, splits, float(correction),
                                         BLOCK_S=triton.next_power_of_2(splits))


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


def std(input: torch.Tensor, dim=None, *, correction: int = 1, keepdim: bool = False) -> torch.Tensor:
    x, outer, R, inner, dims = _as_three_dims(input, dim)
    out_shape = _out_shape(list(input.shape), dims, keepdim)
    total = outer * inner
    y = torch.empty(total, dtype=input.dtype, device=input.device)
    if total == 0:
        return y.view(out_shape)
    if inner == 1 and R < 2**31 - 4096:  # contiguous last dim (or all elements): rows along the fast axis
        _std_last(x, y, outer, R, correction)
        return y.view(out_shape)
    block_i = min(triton.next_power_of_2(max(inner, 1)), 64)
    block_r = max(16, 2048 // block_i)
    n_inner_blocks = triton.cdiv(inner, block_i)
    programs = outer * n_inner_blocks
    splits = 1
    if programs < 512 and R > 4 * block_r:
        splits = min(triton.cdiv(R, block_r), max(1, 1024 // programs))
    r_chunk = max(triton.cdiv(triton.cdiv(R, splits), block_r) * block_r, 1)
    splits = max(triton.cdiv(R, r_chunk), 1)
    cnt = torch.empty(outer * splits * inner, dtype=torch.float32, device=input.device)
    mean = torch.empty_like(cnt)
    m2 = torch.empty_like(cnt)
    _stats_kernel[(programs, splits)](x, cnt, mean, m2, R, inner, r_chunk, n_inner_blocks,
                                      BLOCK_R=block_r, BLOCK_I=block_i)
    BLOCK = 256
    _finalize_kernel[(triton.cdiv(total, BLOCK),)](cnt, mean, m2, y, total, inner, splits, float(correction),
                                                   BLOCK=BLOCK)
    return y.view(out_shape)
