import math

import torch
import triton
import triton.language as tl

# X = A⁻¹·B by a blocked right-looking LU with partial pivoting of the augmented matrix [A | B] (LAPACK getrf's
# scheme: per panel of 32 columns a one-program panel factorization, a column-parallel kernel applying the
# swaps and solving U12 = L11⁻¹·A12, and a tiled tl.dot trailing update, which carries B along to L⁻¹·P⁻¹·B),
# then a blocked back substitution with U. Slower than cuSOLVER at n = 2048: the panel factorization runs on
# one SM per matrix and every panel costs three launches.

# ---- blocked LU with partial pivoting (right-looking, panel width NB) ----------------------------------------
# W (nb, m, N) is a contiguous work copy; the first K = min(m, n) columns are factored, any further columns
# (right-hand sides) are carried along, so they end as L⁻¹·P⁻¹·B. ipiv[j] is the row swapped with row j at step j.


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


@triton.jit
def _lu_panel_kernel(w_ptr, ipiv_ptr, m, N, K, j0, steps, PIVOT: tl.constexpr, NB: tl.constexpr,
                     BR: tl.constexpr):
    # One program per matrix: unblocked LU with partial pivoting of the panel W[j0:m, j0:j0+NB].
    m = tl.zeros((), tl.int64) + m
    N = tl.zeros((), tl.int64) + N
    K = tl.zeros((), tl.int64) + K
    j0 = tl.zeros((), tl.int64) + j0
    steps = tl.zeros((), tl.int64) + steps
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * m * N
    ipiv_ptr += b * K
    pc = j0 + tl.arange(0, NB).to(tl.int64)
    pmask = pc < N
    ar = tl.arange(0, BR).to(tl.int64)
    for jj in range(0, steps):
        j = j0 + jj
        if PIVOT:
            best_v = tl.abs(tl.load(w_ptr + j.to(tl.int64) * N + j))
            best_i = j
            for r0 in range(j, m, BR):
                rows = r0 + ar
                v = tl.abs(tl.load(w_ptr + rows.to(tl.int64) * N + j, mask=rows < m, other=0.0))
                v = tl.where(rows < m, v, -1.0)
                bm = tl.max(v, axis=0)
                bi = r0 + tl.argmax(v, axis=0)
                better = bm > best_v
                best_i = tl.where(better, bi, best_i)
                best_v = tl.where(better, bm, best_v)
            p = best_i
            tl.store(ipiv_ptr + j, p)
            row_j = tl.load(w_ptr + j.to(tl.int64) * N + pc, mask=pmask)
            row_p = tl.load(w_ptr + p.to(tl.int64) * N + pc, mask=pmask)
            tl.debug_barrier()
            tl.store(w_ptr + p.to(tl.int64) * N + pc, row_j, mask=pmask)
            tl.store(w_ptr + j.to(tl.int64) * N + pc, row_p, mask=pmask)
            tl.debug_barrier()
        else:
            tl.store(ipiv_ptr + j, j)
        urow = tl.load(w_ptr + j.to(tl.int64) * N + pc, mask=pmask, other=0.0)
        piv = tl.sum(tl.where(pc == j, urow, 0.0), axis=0)
        den = tl.where(piv != 0.0, piv, 1.0)  # a zero pivot column is all zeros below: leave it
        urow = tl.where(pc > j, urow, 0.0)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            mask = (rows < m)[:, None] & pmask[None, :]
            ptrs = w_ptr + rows[:, None].to(tl.int64) * N + pc[None, :]
            tile = tl.load(ptrs, mask=mask, other=0.0)
            lcol = tl.sum(tl.where(pc[None, :] == j, tile, 0.0), axis=1) / den
            tile = tl.where(pc[None, :] == j, lcol[:, None], tile - lcol[:, None] * urow[None, :])
            tl.store(ptrs, tile, mask=mask)
        tl.debug_barrier()


@triton.jit
def _lu_swap_solve_kernel(w_ptr, ipiv_ptr, m, N, K, j0, steps, PIVOT: tl.constexpr, NB: tl.constexpr,
                          BC: tl.constexpr):
    # Columns outside the panel: apply the panel's row swaps, then U12 = L11⁻¹·A12 for columns right of it.
    m = tl.zeros((), tl.int64) + m
    N = tl.zeros((), tl.int64) + N
    K = tl.zeros((), tl.int64) + K
    j0 = tl.zeros((), tl.int64) + j0
    steps = tl.zeros((), tl.int64) + steps
    b = tl.program_id(1).to(tl.int64)
    w_ptr += b * m * N
    ipiv_ptr += b * K
    v = tl.program_id(0) * BC + tl.arange(0, BC).to(tl.int64)
    c = tl.where(v < j0, v, v + NB)
    cmask = c < N
    if PIVOT:
        for jj in range(0, steps):
            j = j0 + jj
            p = tl.load(ipiv_ptr + j)
            a = tl.load(w_ptr + j.to(tl.int64) * N + c, mask=cmask)
            bb = tl.load(w_ptr + p.to(tl.int64) * N + c, mask=cmask)
            tl.debug_barrier()
            tl.store(w_ptr + p.to(tl.int64) * N + c, a, mask=cmask)
            tl.store(w_ptr + j.to(tl.int64) * N + c, bb, mask=cmask)
            tl.debug_barrier()
    right = cmask & (c >= j0 + NB)
    r = tl.arange(0, NB).to(tl.int64)
    rows = j0 + r
    rmask = rows < m
    mask = rmask[:, None] & right[None, :]
    ptrs = w_ptr + rows[:, None].to(tl.int64) * N + c[None, :]
    t = tl.load(ptrs, mask=mask, other=0.0)
    kc = j0 + tl.arange(0, NB).to(tl.int64)
    lmask = rmask[:, None] & (kc < N)[None, :]
    l11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * N + kc[None, :], mask=lmask, other=0.0)
    for i in tl.static_range(NB):
        row_i = tl.sum(tl.where(r[:, None] == i, t, 0.0), axis=0)
        lcol = tl.sum(tl.where(tl.arange(0, NB).to(tl.int64)[None, :] == i, l11, 0.0), axis=1)
        lcol = tl.where((r > i) & (i < steps), lcol, 0.0)
        t = t - lcol[:, None] * row_i[None, :]
    tl.store(ptrs, t, mask=mask)


@triton.jit
def _lu_update_kernel(w_ptr, m, N, j0, r0, c0, NB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                      PREC: tl.constexpr):
    # Trailing update W[r0:, c0:] -= W[r0:, j0:j0+NB] @ W[j0:j0+NB, c0:]
    m = tl.zeros((), tl.int64) + m
    N = tl.zeros((), tl.int64) + N
    j0 = tl.zeros((), tl.int64) + j0
    r0 = tl.zeros((), tl.int64) + r0
    c0 = tl.zeros((), tl.int64) + c0
    b = tl.program_id(2).to(tl.int64)
    w_ptr += b * m * N
    rows = r0 + tl.program_id(0) * BM + tl.arange(0, BM).to(tl.int64)
    cols = c0 + tl.program_id(1) * BN + tl.arange(0, BN).to(tl.int64)
    kk = j0 + tl.arange(0, NB).to(tl.int64)
    rm = rows < m
    cm = cols < N
    l21 = tl.load(w_ptr + rows[:, None].to(tl.int64) * N + kk[None, :], mask=rm[:, None], other=0.0)
    u12 = tl.load(w_ptr + kk[:, None].to(tl.int64) * N + cols[None, :], mask=cm[None, :], other=0.0)
    ptrs = w_ptr + rows[:, None].to(tl.int64) * N + cols[None, :]
    mask = rm[:, None] & cm[None, :]
    a = tl.load(ptrs, mask=mask, other=0.0)
    a = a - tl.dot(l21, u12, input_precision=PREC).to(a.dtype)
    tl.store(ptrs, a, mask=mask)


def _lu_factor(w, m, N, K, pivot):
    """Factors the first K columns of the work tensor w (nb, m, N) in place; returns ipiv (nb, K) int32."""
    nb = w.shape[0]
    ipiv = torch.empty((nb, max(K, 1)), dtype=torch.int32, device=w.device)
    NB = 32
    prec = "ieee"
    for j0 in range(0, K, NB):
        steps = min(NB, K - j0)
        _lu_panel_kernel[(nb,)](w, ipiv, m, N, K, j0, steps, PIVOT=pivot, NB=NB, BR=64)
        outside = j0 + max(N - j0 - NB, 0)
        if outside:
            BC = 64
            _lu_swap_solve_kernel[(triton.cdiv(outside, BC), nb)](w, ipiv, m, N, K, j0, steps, PIVOT=pivot,
                                                                   NB=NB, BC=BC)
        r0, c0 = j0 + steps, j0 + NB
        if r0 < m and c0 < N:
            BM, BN = 64, 64
            _lu_update_kernel[(triton.cdiv(m - r0, BM), triton.cdiv(N - c0, BN), nb)](
                w, m, N, j0, r0, c0, NB=NB, BM=BM, BN=BN, PREC=prec)
    return ipiv
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


def solve(A, B, *, left=True):
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    Bm = B.unsqueeze(-1) if vector else B
    if not left:  # X·A = B  ⇔  Aᵀ·Xᵀ = Bᵀ
        A, Bm = A.mT, Bm.mT
    k = Bm.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    out = torch.empty((*batch, n, k) if left else (*batch, k, n), dtype=B.dtype, device=B.device)
    if out.numel() == 0:
        return out.squeeze(-1) if vector else out
    a = A.expand(*batch, n, n).reshape(-1, n, n)
    b = Bm.expand(*batch, n, k).reshape(-1, n, k)
    x = (out if left else out.mT).reshape(-1, n, k)
    nb = a.shape[0]
    N = n + k
    w = torch.empty((nb, n, N), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](a, w, n, n, N, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(k, 32), nb)](b, w, n, k, N, n, b.stride(0), b.stride(1),
                                                                  b.stride(2), BR=32, BC=32)
    _lu_factor(w, n, N, n, True)
    _trsm(w, w[:, :, n:], x, lower=False, unit=False)
    return out.squeeze(-1) if vector else out
