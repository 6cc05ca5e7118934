import torch
import triton
import triton.language as tl

# A = L·Lᵀ by a blocked right-looking Cholesky (LAPACK potrf's scheme: diagonal block in registers, panel solve,
# tl.dot trailing update, fp32 throughout), then x = L⁻ᵀ·L⁻¹·b as two blocked triangular solves (Lᵀ is L read
# through swapped strides). Every step is a Triton kernel; cuSOLVER's fused factorization is faster on these
# sizes (a few launches per 32–64 columns, the diagonal block on one SM), so this solution is correct rather
# than fast.


@triton.jit
def _copy_in_kernel(src_ptr, w_ptr, rows, cols, N, col0, s_b, s_r, s_c, BR: tl.constexpr, BC: tl.constexpr):
    # W[b, r, col0 + c] = src[b, r, c] (src read through its strides)
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    v = tl.load(src_ptr + b * s_b + r[:, None].to(tl.int64) * s_r + c[None, :].to(tl.int64) * s_c, mask=mask)
    tl.store(w_ptr + b * rows * N + r[:, None].to(tl.int64) * N + col0 + c[None, :], v, mask=mask)


# ---- blocked right-looking Cholesky (lower), panel width NB ----------------------------------------------------


@triton.jit
def _chol_diag_kernel(w_ptr, n, j0, NB: tl.constexpr):
    # one program per matrix: the diagonal block A11 = L11·L11ᵀ, factored in registers and stored in place
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * n * n
    r = tl.arange(0, NB)
    rows = j0 + r
    valid = rows < n
    a11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], mask=valid[:, None] & valid[None, :],
                  other=0.0)
    a11 = tl.where((~valid)[:, None] & (r[:, None] == r[None, :]), 1.0, a11)  # rows past n: identity
    for q in tl.static_range(NB):
        colq = tl.sum(tl.where(r[None, :] == q, a11, 0.0), axis=1)
        dq = tl.sum(tl.where(r == q, colq, 0.0), axis=0)
        lq = tl.where(r >= q, colq / tl.sqrt(dq), 0.0)
        upd = tl.where((r[:, None] > q) & (r[None, :] > q), lq[:, None] * lq[None, :], 0.0)
        a11 = tl.where(r[None, :] == q, lq[:, None], a11 - upd)
    tl.store(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], a11,
             mask=valid[:, None] & valid[None, :] & (r[:, None] >= r[None, :]))


@triton.jit
def _chol_panel_kernel(w_ptr, n, j0, NB: tl.constexpr):
    # one program per block of NB rows below the diagonal block: L21 = A21·L11⁻ᵀ
    b = tl.program_id(1).to(tl.int64)
    w_ptr += b * n * n
    r = tl.arange(0, NB)
    rows = j0 + r
    valid = rows < n
    l11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :],
                  mask=valid[:, None] & valid[None, :] & (r[:, None] >= r[None, :]), other=0.0)
    rt = j0 + (tl.program_id(0) + 1) * NB + r
    tmask = (rt < n)[:, None] & valid[None, :]
    ptrs = w_ptr + rt[:, None].to(tl.int64) * n + rows[None, :]
    x = tl.load(ptrs, mask=tmask, other=0.0)
    for q in tl.static_range(NB):
        lcol = tl.sum(tl.where(r[None, :] == q, l11, 0.0), axis=1)  # L11[:, q]
        dq = tl.sum(tl.where(r == q, lcol, 0.0), axis=0)
        xq = tl.sum(tl.where(r[None, :] == q, x, 0.0), axis=1) / tl.where(j0 + q < n, dq, 1.0)
        upd = tl.where(r[None, :] > q, xq[:, None] * lcol[None, :], 0.0)
        x = tl.where(r[None, :] == q, xq[:, None], x - upd)
    tl.store(ptrs, x, mask=tmask)


@triton.jit
def _chol_update_kernel(w_ptr, n, j0, r0, NB: tl.constexpr, BM: tl.constexpr, PREC: tl.constexpr):
    # lower triangle of the trailing matrix: W[r0:, r0:] -= L21·L21ᵀ (tiles above the diagonal are skipped)
    b = tl.program_id(2).to(tl.int64)
    ti = tl.program_id(0)
    tj = tl.program_id(1)
    if tj <= ti:
        w_ptr += b * n * n
        rows = r0 + ti * BM + tl.arange(0, BM)
        cols = r0 + tj * BM + tl.arange(0, BM)
        kk = j0 + tl.arange(0, NB)
        li = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + kk[None, :], mask=(rows < n)[:, None], other=0.0)
        lj = tl.load(w_ptr + cols[None, :].to(tl.int64) * n + kk[:, None], mask=(cols < n)[None, :], other=0.0)
        ptrs = w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
        mask = (rows < n)[:, None] & (cols < n)[None, :]
        a = tl.load(ptrs, mask=mask, other=0.0)
        a = a - tl.dot(li, lj, input_precision=PREC).to(a.dtype)
        tl.store(ptrs, a, mask=mask)


def _chol_factor(w, n):
    """Lower Cholesky factor of w (nb, n, n) in place (the upper triangle is left as it was)."""
    nb = w.shape[0]
    NB = 64 if n > 256 else 32
    for j0 in range(0, n, NB):
        _chol_diag_kernel[(nb,)](w, n, j0, NB=NB)
        r0 = j0 + NB
        if r0 < n:
            _chol_panel_kernel[(triton.cdiv(n - r0, NB), nb)](w, n, j0, NB=NB)
            BM = 64
            tiles = triton.cdiv(n - r0, BM)
            _chol_update_kernel[(tiles, tiles, nb)](w, n, j0, r0, NB=NB, BM=BM, PREC="ieee")


# ---- blocked triangular solve T·X = Y, one launch per diagonal block of NB rows -------------------------------
# Every program of a launch solves the diagonal block X_i = T_ii⁻¹·Y_i for its column tile in registers; the
# program that owns block i stores it (plus alpha·Z when EPI), every other one updates its own block of the
# right-hand side: Y_t -= T_ti·X_i (tl.dot). Blocks t below i (LOWER, forward) or above i (upper, backward).


@triton.jit
def _trsm_step_kernel(t_ptr, st_b, st_r, st_c, y_ptr, sy_b, sy_r, sy_c, x_ptr, sx_b, sx_r, sx_c,
                      z_ptr, sz_b, sz_r, sz_c, alpha, n, k, i0,
                      LOWER: tl.constexpr, UNIT: tl.constexpr, EPI: tl.constexpr, NB: tl.constexpr,
                      BC: tl.constexpr, PREC: tl.constexpr):
    b = tl.program_id(2).to(tl.int64)
    blk = i0 // NB
    if LOWER:
        tb = blk + tl.program_id(0)
    else:
        tb = tl.program_id(0)
    r = tl.arange(0, NB)
    ri = i0 + r
    rmask = ri < n
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
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
            x = x + alpha * z
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
    for i in order:
        count = nblocks - i if lower else i + 1
        _trsm_step_kernel[(count, triton.cdiv(k, BC), nb)](
            t, t.stride(0), t.stride(1), t.stride(2), y, y.stride(0), y.stride(1), y.stride(2),
            x, x.stride(0), x.stride(1), x.stride(2), zz, zz.stride(0), zz.stride(1), zz.stride(2), alpha,
            n, k, i * NB, LOWER=lower, UNIT=unit, EPI=z is not None, NB=NB, BC=BC, PREC="ieee")


def fused_cholesky_solve(A, b):
    n = A.shape[-1]
    k = b.shape[-1]
    out = torch.empty((n, k), dtype=b.dtype, device=b.device)
    if n == 0 or k == 0:
        return out
    a3 = A.reshape(1, n, n)
    b3 = b.reshape(1, n, k)
    w = torch.empty((1, n, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), 1)](a3, w, n, n, n, 0, a3.stride(0), a3.stride(1),
                                                                 a3.stride(2), BR=32, BC=32)
    _chol_factor(w, n)
    y = torch.empty((1, n, k), dtype=b.dtype, device=b.device)
    z = torch.empty((1, n, k), dtype=b.dtype, device=b.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(k, 32), 1)](b3, y, n, k, k, 0, b3.stride(0), b3.stride(1),
                                                                 b3.stride(2), BR=32, BC=32)
    _trsm(w, y, z, lower=True, unit=False)
    _trsm(w.mT, z, out.view(1, n, k), lower=False, unit=False)
    return out
