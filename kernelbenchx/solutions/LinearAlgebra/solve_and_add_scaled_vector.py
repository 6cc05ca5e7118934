import math

import torch
import triton
import triton.language as tl

# x = A⁻¹·b (A upper triangular) + alpha·y as one blocked back substitution: one launch per block of 32 rows,
# every program solves the diagonal block in registers for its columns and updates its own block of b above
# it with tl.dot; the program owning the diagonal block adds alpha·y (read through y's broadcast strides) as it
# stores x. Only A's upper triangle is read.

@triton.jit
def _copy_in_kernel(src_ptr, w_ptr, rows, cols, N, col0, s_b, s_r, s_c, BR: tl.constexpr, BC: tl.constexpr):
    # W[b, r, col0 + c] = src[b, r, c] (src read through its strides)
    rows = tl.zeros((), tl.int64) + rows
    cols = tl.zeros((), tl.int64) + cols
    N = tl.zeros((), tl.int64) + N
    col0 = tl.zeros((), tl.int64) + col0
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    v = tl.load(src_ptr + b * s_b + r[:, None].to(tl.int64) * s_r + c[None, :].to(tl.int64) * s_c, mask=mask)
    tl.store(w_ptr + b * rows * N + r[:, None].to(tl.int64) * N + col0 + c[None, :], v, mask=mask)


# ---- blocked triangular solve T·X = Y, one launch per diagonal block of NB rows -------------------------------
# Every program of a launch solves the diagonal block X_i = T_ii⁻¹·Y_i for its column tile in registers; the
# program that owns block i stores it (plus alpha·Z when EPI), every other one updates its own block of the
# right-hand side: Y_t -= T_ti·X_i (tl.dot). Blocks t below i (LOWER, forward) or above i (upper, backward).


@triton.jit
def _trsm_step_kernel(t_ptr, st_b, st_r, st_c, y_ptr, sy_b, sy_r, sy_c, x_ptr, sx_b, sx_r, sx_c,
                      z_ptr, sz_b, sz_r, sz_c, alpha_hi, alpha_lo, n, k, i0,
                      LOWER: tl.constexpr, UNIT: tl.constexpr, EPI: tl.constexpr, NB: tl.constexpr,
                      BC: tl.constexpr, PREC: tl.constexpr):
    n = tl.zeros((), tl.int64) + n
    k = tl.zeros((), tl.int64) + k
    i0 = tl.zeros((), tl.int64) + i0
    b = tl.program_id(2).to(tl.int64)
    blk = i0 // NB
    if LOWER:
        tb = blk + tl.program_id(0)
    else:
        tb = tl.program_id(0)
    r = tl.arange(0, NB).to(tl.int64)
    ri = i0 + r
    rmask = ri < n
    cols = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    cmask = cols < k
    t_ptr += b * st_b
    y_ptr += b * sy_b
    tii = tl.load(t_ptr + ri[:, None].to(tl.int64) * st_r + ri[None, :].to(tl.int64) * st_c,
                  mask=rmask[:, None] & rmask[None, :], other=0.0)
    ymask = rmask[:, None] & cmask[None, :]
    x = tl.load(y_ptr + ri[:, None].to(tl.int64) * sy_r + cols[None, :].to(tl.int64) * sy_c, mask=ymask,
                other=0.0)
    for s in tl.static_range(NB):
        if LOWER:
            q = s
        else:
            q = NB - 1 - s
        tcol = tl.sum(tl.where(r[None, :] == q, tii, 0.0), axis=1)  # T[:, q] of the block
        xq = tl.sum(tl.where(r[:, None] == q, x, 0.0), axis=0)
        if not UNIT:
            d = tl.sum(tl.where(r == q, tcol, 0.0), axis=0)
            xq = xq / tl.where(i0 + q < n, d, 1.0)
        if LOWER:
            below = r > q
        else:
            below = r < q
        x = tl.where(r[:, None] == q, xq[None, :], x - tl.where(below, tcol, 0.0)[:, None] * xq[None, :])
    if tb == blk:
        if EPI:
            z = tl.load(z_ptr + b * sz_b + ri[:, None].to(tl.int64) * sz_r + cols[None, :].to(tl.int64) * sz_c,
                        mask=ymask, other=0.0)
            # alpha arrives as float32 hi + lo parts, so float64 data keep all of its digits
            x = x + ((tl.zeros((), x.dtype) + alpha_hi) + alpha_lo) * z
        tl.store(x_ptr + b * sx_b + ri[:, None].to(tl.int64) * sx_r + cols[None, :].to(tl.int64) * sx_c, x,
                 mask=ymask)
    else:
        rt = tb * NB + r
        tmask = rt < n
        tti = tl.load(t_ptr + rt[:, None].to(tl.int64) * st_r + ri[None, :].to(tl.int64) * st_c,
                      mask=tmask[:, None] & rmask[None, :], other=0.0)
        yptrs = y_ptr + rt[:, None].to(tl.int64) * sy_r + cols[None, :].to(tl.int64) * sy_c
        ymask_t = tmask[:, None] & cmask[None, :]
        yt = tl.load(yptrs, mask=ymask_t, other=0.0)
        yt = yt - tl.dot(tti, x, input_precision=PREC).to(yt.dtype)
        tl.store(yptrs, yt, mask=ymask_t)


def _f32(v):
    """v rounded to the nearest float32 (what a float32 kernel argument carries)."""
    if v == 0.0 or not math.isfinite(v):
        return v
    e = math.frexp(v)[1]
    return math.ldexp(round(math.ldexp(v, 24 - e)), e - 24)


def _trsm(t, y, x, lower, unit, z=None, alpha=0.0):
    """Solves t·x = y for x (all (nb, n, ·) tensors or views; y is overwritten as workspace)."""
    nb, n, k = y.shape
    if n == 0 or k == 0 or nb == 0:
        return
    NB = 32
    BC = max(16, min(64, triton.next_power_of_2(k)))
    nblocks = triton.cdiv(n, NB)
    zz = z if z is not None else y
    order = range(nblocks) if lower else range(nblocks - 1, -1, -1)
    a_hi = _f32(alpha)
    for i in order:
        count = nblocks - i if lower else i + 1
        _trsm_step_kernel[(count, triton.cdiv(k, BC), nb)](
            t, t.stride(0), t.stride(1), t.stride(2), y, y.stride(0), y.stride(1), y.stride(2),
            x, x.stride(0), x.stride(1), x.stride(2), zz, zz.stride(0), zz.stride(1), zz.stride(2), a_hi, alpha - a_hi,
            n, k, i * NB, LOWER=lower, UNIT=unit, EPI=z is not None, NB=NB, BC=BC, PREC="ieee")


def solve_and_add_scaled_vector(A, b, y, alpha):
    n, k = b.shape[-2], b.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], b.shape[:-2])
    out = torch.empty((*batch, n, k), dtype=b.dtype, device=b.device)
    if out.numel() == 0:
        return out
    t = A.expand(*batch, n, n).reshape(-1, n, n)
    bb = b.expand(*batch, n, k).reshape(-1, n, k)
    z = y.expand(out.shape).reshape(-1, n, k)
    x = out.view(-1, n, k)
    nb = x.shape[0]
    work = torch.empty((nb, n, k), dtype=b.dtype, device=b.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(k, 32), nb)](bb, work, n, k, k, 0, bb.stride(0),
                                                                  bb.stride(1), bb.stride(2), BR=32, BC=32)
    _trsm(t, work, x, lower=False, unit=False, z=z, alpha=float(alpha))
    return out
