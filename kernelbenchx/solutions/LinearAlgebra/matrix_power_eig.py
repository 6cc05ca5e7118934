import math

import torch
import triton
import triton.language as tl

# A^k = V·diag(λ^k)·V⁻¹ in float64 inside. The eigendecomposition: Householder reduction to Hessenberg form
# (two launches per column), the Francis double-shift QR iteration of EISPACK's hqr2 (one program per matrix),
# eigenvectors of the Schur form by complex back substitution, V = Z·Y with tl.dot. Then λ^k = exp(k·log λ)
# (principal log) and X solves the complex system Vᵀ·Xᵀ = (V·diag(λ^k))ᵀ, written as a real 2n×2n system and
# solved by the blocked right-looking LU with partial pivoting plus a blocked back substitution. Slower than
# cuSOLVER/MAGMA at the larger sizes: the QR iteration runs on one SM per matrix.

# ---- blocked LU with partial pivoting (right-looking, panel width NB) ----------------------------------------
# W (nb, m, N) is a contiguous work copy; the first K = min(m, n) columns are factored, any further columns
# (right-hand sides) are carried along, so they end as L⁻¹·P⁻¹·B. ipiv[j] is the row swapped with row j at step j.


@triton.jit
def _copy_in_kernel(src_ptr, w_ptr, rows, cols, N, col0, s_b, s_r, s_c, BR: tl.constexpr, BC: tl.constexpr):
    # W[b, r, col0 + c] = src[b, r, c] (src read through its strides)
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    v = tl.load(src_ptr + b * s_b + r[:, None].to(tl.int64) * s_r + c[None, :].to(tl.int64) * s_c, mask=mask)
    tl.store(w_ptr + b * rows * N + r[:, None].to(tl.int64) * N + col0 + c[None, :], v, mask=mask)


@triton.jit
def _lu_panel_kernel(w_ptr, ipiv_ptr, m, N, K, j0, steps, PIVOT: tl.constexpr, NB: tl.constexpr,
                     BR: tl.constexpr):
    # One program per matrix: unblocked LU with partial pivoting of the panel W[j0:m, j0:j0+NB].
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * m * N
    ipiv_ptr += b * K
    pc = j0 + tl.arange(0, NB)
    pmask = pc < N
    ar = tl.arange(0, BR)
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
    b = tl.program_id(1).to(tl.int64)
    w_ptr += b * m * N
    ipiv_ptr += b * K
    v = tl.program_id(0) * BC + tl.arange(0, BC)
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
    r = tl.arange(0, NB)
    rows = j0 + r
    rmask = rows < m
    mask = rmask[:, None] & right[None, :]
    ptrs = w_ptr + rows[:, None].to(tl.int64) * N + c[None, :]
    t = tl.load(ptrs, mask=mask, other=0.0)
    kc = j0 + tl.arange(0, NB)
    lmask = rmask[:, None] & (kc < N)[None, :]
    l11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * N + kc[None, :], mask=lmask, other=0.0)
    for i in tl.static_range(NB):
        row_i = tl.sum(tl.where(r[:, None] == i, t, 0.0), axis=0)
        lcol = tl.sum(tl.where(tl.arange(0, NB)[None, :] == i, l11, 0.0), axis=1)
        lcol = tl.where((r > i) & (i < steps), lcol, 0.0)
        t = t - lcol[:, None] * row_i[None, :]
    tl.store(ptrs, t, mask=mask)


@triton.jit
def _lu_update_kernel(w_ptr, m, N, j0, r0, c0, NB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                      PREC: tl.constexpr):
    # Trailing update W[r0:, c0:] -= W[r0:, j0:j0+NB] @ W[j0:j0+NB, c0:]
    b = tl.program_id(2).to(tl.int64)
    w_ptr += b * m * N
    rows = r0 + tl.program_id(0) * BM + tl.arange(0, BM)
    cols = c0 + tl.program_id(1) * BN + tl.arange(0, BN)
    kk = j0 + tl.arange(0, NB)
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
# ---- eigendecomposition of a general real matrix (float64 inside) --------------------------------------------
# Hessenberg reduction by Householder reflectors (two launches per column), the Francis double-shift QR
# iteration to real Schur form T = Zᵀ·H·Z with the transforms accumulated (EISPACK hqr2's iteration, one
# program per matrix), eigenvectors of T by back substitution (complex arithmetic, one program per tile of
# eigenvectors), V = Z·Y with tl.dot, and unit-norm columns.


@triton.jit
def _reflector(col_ptr, stride, start, n, tiny, BR: tl.constexpr):
    # Householder vector of x = col[start:n] (LAPACK larfg convention, scaled norm): returns (beta, tau, scale)
    ar = tl.arange(0, BR).to(tl.int64)
    x0 = tl.load(col_ptr + start * stride)
    amax = tl.abs(x0)
    for r0 in range(start + 1, n, BR):
        rows = r0 + ar
        amax = tl.maximum(amax, tl.max(tl.abs(tl.load(col_ptr + rows * stride, mask=rows < n,
                                                      other=0.0)), axis=0))
    inv = tl.where(amax > tiny, 1.0 / tl.where(amax > tiny, amax, 1.0), 0.0)
    sq = tl.zeros((), x0.dtype)
    for r0 in range(start + 1, n, BR):
        rows = r0 + ar
        x = tl.load(col_ptr + rows * stride, mask=rows < n, other=0.0) * inv
        sq += tl.sum(x * x, axis=0)
    active = sq > 0.0
    x0s = x0 * inv
    norm = amax * tl.sqrt(x0s * x0s + sq)
    beta = tl.where(x0 >= 0.0, -norm, norm)
    tau = tl.where(active, (beta - x0) / tl.where(active, beta, 1.0), 0.0)
    scale = tl.where(active, 1.0 / tl.where(active, x0 - beta, 1.0), 0.0)
    return tl.where(active, beta, x0), tau, scale


@triton.jit
def _hess_left_kernel(h_ptr, zt_ptr, n, j, tiles_h, tiny, BR: tl.constexpr, BC: tl.constexpr):
    # H[j+1:, j+1:] ← (I − τ·v·vᵀ)·H[j+1:, j+1:] and Zt[j+1:, :] ← (I − τ·v·vᵀ)·Zt[j+1:, :] (Z·H_j), column tiles;
    # every program rebuilds v from H's column j (left untouched here)
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    j = tl.zeros((), tl.int64) + j  # int64 index arithmetic throughout
    b = tl.program_id(1).to(tl.int64)
    h_ptr += b * n * n
    zt_ptr += b * n * n
    t = tl.program_id(0)
    col_ptr = h_ptr + j
    beta, tau, scale = _reflector(col_ptr, n, j + 1, n, tiny, BR)
    if t < tiles_h:
        base = h_ptr
        cols = j + 1 + t * BC + tl.arange(0, BC).to(tl.int64)
    else:
        base = zt_ptr
        cols = (t - tiles_h) * BC + tl.arange(0, BC).to(tl.int64)
    cm = cols < n
    ar = tl.arange(0, BR).to(tl.int64)
    w = tl.zeros([BC], dtype=h_ptr.dtype.element_ty)
    for r0 in range(j + 1, n, BR):
        rows = r0 + ar
        rm = rows < n
        v = tl.load(col_ptr + rows * n, mask=rm, other=0.0) * scale
        v = tl.where(rows == j + 1, 1.0, v)
        tile = tl.load(base + rows[:, None] * n + cols[None, :], mask=rm[:, None] & cm[None, :],
                       other=0.0)
        w += tl.sum(v[:, None] * tile, axis=0)
    tl.debug_barrier()
    for r0 in range(j + 1, n, BR):
        rows = r0 + ar
        rm = rows < n
        v = tl.load(col_ptr + rows * n, mask=rm, other=0.0) * scale
        v = tl.where(rows == j + 1, 1.0, v)
        ptrs = base + rows[:, None] * n + cols[None, :]
        mask = rm[:, None] & cm[None, :]
        tl.store(ptrs, tl.load(ptrs, mask=mask, other=0.0) - tau * v[:, None] * w[None, :], mask=mask)


@triton.jit
def _hess_right_kernel(h_ptr, n, j, tiny, BR: tl.constexpr, BC: tl.constexpr):
    # H[:, j+1:] ← H[:, j+1:]·(I − τ·v·vᵀ), row tiles; every program rebuilds v from column j, so no program
    # may change that column here (other programs may still be reading it): _hess_finish_kernel sets it later
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    j = tl.zeros((), tl.int64) + j  # int64 index arithmetic throughout
    b = tl.program_id(1).to(tl.int64)
    h_ptr += b * n * n
    col_ptr = h_ptr + j
    beta, tau, scale = _reflector(col_ptr, n, j + 1, n, tiny, BC)
    rows = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    rm = rows < n
    ac = tl.arange(0, BC).to(tl.int64)
    y = tl.zeros([BR], dtype=h_ptr.dtype.element_ty)
    for c0 in range(j + 1, n, BC):
        cols = c0 + ac
        cm = cols < n
        v = tl.load(col_ptr + cols * n, mask=cm, other=0.0) * scale
        v = tl.where(cols == j + 1, 1.0, v)
        tile = tl.load(h_ptr + rows[:, None] * n + cols[None, :], mask=rm[:, None] & cm[None, :],
                       other=0.0)
        y += tl.sum(tile * v[None, :], axis=1)
    tl.debug_barrier()
    for c0 in range(j + 1, n, BC):
        cols = c0 + ac
        cm = cols < n
        v = tl.load(col_ptr + cols * n, mask=cm, other=0.0) * scale
        v = tl.where(cols == j + 1, 1.0, v)
        ptrs = h_ptr + rows[:, None] * n + cols[None, :]
        mask = rm[:, None] & cm[None, :]
        tl.store(ptrs, tl.load(ptrs, mask=mask, other=0.0) - tau * y[:, None] * v[None, :], mask=mask)


@triton.jit
def _hess_finish_kernel(h_ptr, n, tiny, BC: tl.constexpr):
    # after all steps: column j (one program each, j < n − 2) becomes (beta, 0, …) below the diagonal. Column j
    # still holds the x its reflector was built from: no later step touches columns ≤ j.
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    j = tl.program_id(0).to(tl.int64)
    b = tl.program_id(1).to(tl.int64)
    col_ptr = h_ptr + b * n * n + j
    beta, tau, scale = _reflector(col_ptr, n, j + 1, n, tiny, BC)
    tl.debug_barrier()
    ac = tl.arange(0, BC).to(tl.int64)
    for r0 in range(j + 1, n, BC):
        rr = r0 + ac
        tl.store(col_ptr + rr * n, tl.where(rr == j + 1, beta, 0.0), mask=rr < n)


@triton.jit
def _hqr_kernel(h_ptr, zt_ptr, wr_ptr, wi_ptr, nrm_ptr, n, eps, max_iter, BLOCK: tl.constexpr):
    # One program per matrix: the Francis double-shift QR iteration of hqr2 on the Hessenberg matrix H, which
    # ends quasi-triangular (2×2 blocks for complex pairs) with its eigenvalues in wr, wi; the transforms are
    # accumulated into the rows of Zt (the columns of Z).
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    b = tl.program_id(0).to(tl.int64)
    h_ptr += b * n * n
    zt_ptr += b * n * n
    wr_ptr += b * n
    wi_ptr += b * n
    ar = tl.arange(0, BLOCK).to(tl.int64)
    zero = tl.zeros((), h_ptr.dtype.element_ty)
    norm = zero
    for r0 in range(0, n):
        for c0 in range(tl.maximum(r0 - 1, 0), n, BLOCK):
            c = c0 + ar
            norm += tl.sum(tl.abs(tl.load(h_ptr + r0 * n + c, mask=c < n, other=0.0)), axis=0)
    tl.store(nrm_ptr + b, norm)
    exshift = zero
    p = zero
    q = zero
    r = zero
    s = zero
    z = zero
    w = zero
    x = zero
    y = zero
    nn = n - 1
    it = tl.zeros((), tl.int64)
    total = tl.zeros((), tl.int64)
    while (nn >= 0) & (total < max_iter):
        # l: the largest index ≤ nn whose subdiagonal entry is negligible (0 if none)
        l = tl.zeros((), tl.int64)
        for c0 in range(1, nn + 1, BLOCK):
            li = c0 + ar
            lm = li <= nn
            sub = tl.abs(tl.load(h_ptr + li * n + li - 1, mask=lm, other=0.0))
            dd = tl.abs(tl.load(h_ptr + (li - 1) * n + li - 1, mask=lm, other=0.0)) + \
                tl.abs(tl.load(h_ptr + li * n + li, mask=lm, other=0.0))
            dd = tl.where(dd == 0.0, norm, dd)
            l = tl.maximum(l, tl.max(tl.where(lm & (sub < eps * dd), li, 0), axis=0))
        if l == nn:  # one root
            hnn = tl.load(h_ptr + (nn) * n + (nn)) + exshift
            tl.store(h_ptr + (nn) * n + (nn), hnn)
            tl.store(wr_ptr + nn, hnn)
            tl.store(wi_ptr + nn, zero)
            nn -= 1
            it = it * 0
        elif l == nn - 1:  # two roots
            w = tl.load(h_ptr + (nn) * n + (nn - 1)) * tl.load(h_ptr + (nn - 1) * n + (nn))
            p = (tl.load(h_ptr + (nn - 1) * n + (nn - 1)) - tl.load(h_ptr + (nn) * n + (nn))) / 2.0
            q = p * p + w
            z = tl.sqrt(tl.abs(q))
            x = tl.load(h_ptr + (nn) * n + (nn)) + exshift
            tl.store(h_ptr + (nn) * n + (nn), x)
            tl.store(h_ptr + (nn - 1) * n + (nn - 1), tl.load(h_ptr + (nn - 1) * n + (nn - 1)) + exshift)
            if q >= 0.0:  # a real pair: rotate it to upper triangular form
                z = tl.where(p >= 0.0, p + z, p - z)
                tl.store(wr_ptr + nn - 1, x + z)
                tl.store(wr_ptr + nn, tl.where(z != 0.0, x - w / tl.where(z != 0.0, z, 1.0), x + z))
                tl.store(wi_ptr + nn - 1, zero)
                tl.store(wi_ptr + nn, zero)
                x = tl.load(h_ptr + (nn) * n + (nn - 1))
                s = tl.abs(x) + tl.abs(z)
                p = x / s
                q = z / s
                r = tl.sqrt(p * p + q * q)
                p = p / r
                q = q / r
                tl.debug_barrier()
                for c0 in range(nn - 1, n, BLOCK):  # rows nn−1, nn
                    c = c0 + ar
                    m = c < n
                    ra = tl.load(h_ptr + (nn - 1) * n + c, mask=m, other=0.0)
                    rb = tl.load(h_ptr + nn * n + c, mask=m, other=0.0)
                    tl.store(h_ptr + (nn - 1) * n + c, q * ra + p * rb, mask=m)
                    tl.store(h_ptr + nn * n + c, q * rb - p * ra, mask=m)
                tl.debug_barrier()
                for r0 in range(0, nn + 1, BLOCK):  # columns nn−1, nn
                    i = r0 + ar
                    m = i <= nn
                    ca = tl.load(h_ptr + i * n + nn - 1, mask=m, other=0.0)
                    cb = tl.load(h_ptr + i * n + nn, mask=m, other=0.0)
                    tl.store(h_ptr + i * n + nn - 1, q * ca + p * cb, mask=m)
                    tl.store(h_ptr + i * n + nn, q * cb - p * ca, mask=m)
                for c0 in range(0, n, BLOCK):  # Zt rows nn−1, nn
                    c = c0 + ar
                    m = c < n
                    za = tl.load(zt_ptr + (nn - 1) * n + c, mask=m, other=0.0)
                    zb = tl.load(zt_ptr + nn * n + c, mask=m, other=0.0)
                    tl.store(zt_ptr + (nn - 1) * n + c, q * za + p * zb, mask=m)
                    tl.store(zt_ptr + nn * n + c, q * zb - p * za, mask=m)
            else:  # a complex pair
                tl.store(wr_ptr + nn - 1, x + p)
                tl.store(wr_ptr + nn, x + p)
                tl.store(wi_ptr + nn - 1, z)
                tl.store(wi_ptr + nn, -z)
            nn -= 2
            it = it * 0
        else:  # a double QR step on rows/columns l … nn
            x = tl.load(h_ptr + (nn) * n + (nn))
            y = tl.load(h_ptr + (nn - 1) * n + (nn - 1))
            w = tl.load(h_ptr + (nn) * n + (nn - 1)) * tl.load(h_ptr + (nn - 1) * n + (nn))
            if it == 10:  # Wilkinson's exceptional shift
                exshift += x
                for r0 in range(0, nn + 1, BLOCK):
                    i = r0 + ar
                    dp = h_ptr + i * (n + 1)
                    tl.store(dp, tl.load(dp, mask=i <= nn, other=0.0) - x, mask=i <= nn)
                tl.debug_barrier()
                s = tl.abs(tl.load(h_ptr + (nn) * n + (nn - 1))) + tl.abs(tl.load(h_ptr + (nn - 1) * n + (nn - 2)))
                x = 0.75 * s
                y = x
                w = -0.4375 * s * s
            if it == 30:  # MATLAB's exceptional shift
                s = (y - x) / 2.0
                s = s * s + w
                if s > 0.0:
                    s = tl.sqrt(s)
                    s = tl.where(y < x, -s, s)
                    s = x - w / ((y - x) / 2.0 + s)
                    for r0 in range(0, nn + 1, BLOCK):
                        i = r0 + ar
                        dp = h_ptr + i * (n + 1)
                        tl.store(dp, tl.load(dp, mask=i <= nn, other=0.0) - s, mask=i <= nn)
                    tl.debug_barrier()
                    exshift += s
                    x = zero + 0.964
                    y = x
                    w = x
            it += 1
            total += 1
            # m: where the bulge starts (two consecutive small subdiagonal entries), found for all candidates
            m = l
            for c0 in range(l + 1, nn - 1, BLOCK):
                mi = c0 + ar
                mm = mi <= nn - 2
                zz = tl.load(h_ptr + mi * (n + 1), mask=mm, other=1.0)
                rr = x - zz
                ss = y - zz
                h10 = tl.load(h_ptr + (mi + 1) * n + mi, mask=mm, other=1.0)
                h01 = tl.load(h_ptr + mi * n + mi + 1, mask=mm, other=0.0)
                h11 = tl.load(h_ptr + (mi + 1) * (n + 1), mask=mm, other=0.0)
                h21 = tl.load(h_ptr + (mi + 2) * n + mi + 1, mask=mm, other=0.0)
                pp = (rr * ss - w) / h10 + h01
                qq = h11 - zz - rr - ss
                rv = h21
                sv = tl.abs(pp) + tl.abs(qq) + tl.abs(rv)
                sv = tl.where(sv == 0.0, 1.0, sv)
                pp = pp / sv
                qq = qq / sv
                rv = rv / sv
                hm1 = tl.abs(tl.load(h_ptr + mi * n + mi - 1, mask=mm, other=0.0))
                hmm1 = tl.abs(tl.load(h_ptr + (mi - 1) * (n + 1), mask=mm, other=0.0))
                ok = hm1 * (tl.abs(qq) + tl.abs(rv)) < eps * (tl.abs(pp) * (hmm1 + tl.abs(zz) + tl.abs(h11)))
                m = tl.maximum(m, tl.max(tl.where(mm & ok, mi, 0), axis=0))
            z = tl.load(h_ptr + (m) * n + (m))
            r = x - z
            s = y - z
            p = (r * s - w) / tl.load(h_ptr + (m + 1) * n + (m)) + tl.load(h_ptr + (m) * n + (m + 1))
            q = tl.load(h_ptr + (m + 1) * n + (m + 1)) - z - r - s
            r = tl.load(h_ptr + (m + 2) * n + (m + 1))
            s = tl.abs(p) + tl.abs(q) + tl.abs(r)
            p = p / s
            q = q / s
            r = r / s
            for c0 in range(m + 2, nn + 1, BLOCK):
                i = c0 + ar
                tl.store(h_ptr + i * n + i - 2, zero, mask=i <= nn)
                tl.store(h_ptr + i * n + i - 3, zero, mask=(i <= nn) & (i > m + 2))
            tl.debug_barrier()
            for k in range(m, nn):
                notlast = k != nn - 1
                go = k == m
                if k != m:
                    p = tl.load(h_ptr + (k) * n + (k - 1))
                    q = tl.load(h_ptr + (k + 1) * n + (k - 1))
                    r = tl.where(notlast, tl.load(h_ptr + (tl.minimum(k + 2, nn)) * n + (k - 1)), 0.0)
                    x = tl.abs(p) + tl.abs(q) + tl.abs(r)
                    go = x != 0.0
                    xs = tl.where(go, x, 1.0)
                    p = p / xs
                    q = q / xs
                    r = r / xs
                if go:
                    s = tl.sqrt(p * p + q * q + r * r)
                    s = tl.where(p < 0.0, -s, s)
                    if s != 0.0:
                        if k != m:
                            tl.store(h_ptr + (k) * n + (k - 1), -s * x)
                        elif l != m:
                            tl.store(h_ptr + (k) * n + (k - 1), -tl.load(h_ptr + (k) * n + (k - 1)))
                        p = p + s
                        x = p / s
                        y = q / s
                        z = r / s
                        q = q / p
                        r = r / p
                        tl.debug_barrier()
                        # rows k, k+1, k+2 from column k on: p = a + q·b (+ r·c); a −= p·x; b −= p·y; c −= p·z
                        ra_ptr = h_ptr + k * n
                        for c0 in range(k, n, BLOCK):
                            c = c0 + ar
                            cmk = c < n
                            va = tl.load(ra_ptr + c, mask=cmk, other=0.0)
                            vb = tl.load(ra_ptr + n + c, mask=cmk, other=0.0)
                            vc = tl.load(ra_ptr + 2 * n + c, mask=cmk & notlast, other=0.0)
                            pv = va + q * vb + tl.where(notlast, r * vc, 0.0)
                            tl.store(ra_ptr + c, va - pv * x, mask=cmk)
                            tl.store(ra_ptr + n + c, vb - pv * y, mask=cmk)
                            tl.store(ra_ptr + 2 * n + c, vc - pv * z, mask=cmk & notlast)
                        tl.debug_barrier()
                        # columns k, k+1, k+2 down to row min(nn, k+3): p = x·a + y·b (+ z·c); a −= p; b −= p·q; c −= p·r
                        hi = tl.minimum(nn, k + 3) + 1
                        for r0 in range(0, hi, BLOCK):
                            i = r0 + ar
                            imk = i < hi
                            cp = h_ptr + i * n + k
                            va = tl.load(cp, mask=imk, other=0.0)
                            vb = tl.load(cp + 1, mask=imk, other=0.0)
                            vc = tl.load(cp + 2, mask=imk & notlast, other=0.0)
                            pv = x * va + y * vb + tl.where(notlast, z * vc, 0.0)
                            tl.store(cp, va - pv, mask=imk)
                            tl.store(cp + 1, vb - pv * q, mask=imk)
                            tl.store(cp + 2, vc - pv * r, mask=imk & notlast)
                        # the transforms, into rows k, k+1, k+2 of Zt
                        za_ptr = zt_ptr + k * n
                        for c0 in range(0, n, BLOCK):
                            c = c0 + ar
                            cmk = c < n
                            va = tl.load(za_ptr + c, mask=cmk, other=0.0)
                            vb = tl.load(za_ptr + n + c, mask=cmk, other=0.0)
                            vc = tl.load(za_ptr + 2 * n + c, mask=cmk & notlast, other=0.0)
                            pv = x * va + y * vb + tl.where(notlast, z * vc, 0.0)
                            tl.store(za_ptr + c, va - pv, mask=cmk)
                            tl.store(za_ptr + n + c, vb - pv * q, mask=cmk)
                            tl.store(za_ptr + 2 * n + c, vc - pv * r, mask=cmk & notlast)
                        tl.debug_barrier()


@triton.jit
def _cdiv(ar, ai, br, bi):
    # (ar + i·ai) / (br + i·bi), scaled as in EISPACK's cdiv
    big = tl.abs(br) > tl.abs(bi)
    rr = tl.where(big, bi / tl.where(big, br, 1.0), br / tl.where(big, 1.0, bi))
    d = tl.where(big, br + rr * bi, bi + rr * br)
    re = tl.where(big, (ar + rr * ai) / d, (rr * ar + ai) / d)
    im = tl.where(big, (ai - rr * ar) / d, (rr * ai - ar) / d)
    return re, im


@triton.jit
def _eigvec_kernel(h_ptr, wr_ptr, wi_ptr, nrm_ptr, yr_ptr, yi_ptr, n, eps, BJ: tl.constexpr, BC: tl.constexpr):
    # Eigenvectors of the quasi-triangular T (in H), one complex vector per eigenvalue, BC of them per program:
    # y = 0 below the eigenvalue's own 1×1/2×2 block, its block's null vector there, then back substitution
    # row by row (2×2 blocks of T solved together). Y (n×n, row-major, real and imaginary parts) gets the columns.
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    b = tl.program_id(1).to(tl.int64)
    h_ptr += b * n * n
    yr_ptr += b * n * n
    yi_ptr += b * n * n
    wr_ptr += b * n
    wi_ptr += b * n
    norm = tl.load(nrm_ptr + b)
    cols = tl.program_id(0) * BC + tl.arange(0, BC).to(tl.int64)
    cm = cols < n
    lr = tl.load(wr_ptr + cols, mask=cm, other=0.0)
    li = tl.load(wi_ptr + cols, mask=cm, other=0.0)
    start = tl.where(li < 0.0, cols - 1, cols)
    aj = tl.arange(0, BJ).to(tl.int64)
    for r0 in range(0, n, BJ):
        rows = r0 + aj
        mask = (rows < n)[:, None] & cm[None, :]
        z2 = tl.zeros([BJ, BC], dtype=h_ptr.dtype.element_ty)
        tl.store(yr_ptr + rows[:, None] * n + cols[None, :], z2, mask=mask)
        tl.store(yi_ptr + rows[:, None] * n + cols[None, :], z2, mask=mask)
    tl.debug_barrier()
    cplx = li != 0.0
    s1 = tl.minimum(start + 1, n - 1)
    a = tl.load(h_ptr + start * (n + 1), mask=cm, other=1.0)
    bq = tl.load(h_ptr + start * n + s1, mask=cm & cplx, other=0.0)
    cc = tl.load(h_ptr + s1 * n + start, mask=cm & cplx, other=0.0)
    d = tl.load(h_ptr + s1 * (n + 1), mask=cm & cplx, other=0.0)
    lower_one = tl.abs(cc) >= tl.abs(bq)  # y[s+1] = 1, y[s] = (λ − d)/c; else y[s] = 1, y[s+1] = (λ − a)/b
    cs = tl.where(cc != 0.0, cc, 1.0)
    bs = tl.where(bq != 0.0, bq, 1.0)
    y0r = tl.where(cplx, tl.where(lower_one, (lr - d) / cs, 1.0), 1.0)
    y0i = tl.where(cplx, tl.where(lower_one, li / cs, 0.0), 0.0)
    y1r = tl.where(lower_one, 1.0, (lr - a) / bs)
    y1i = tl.where(lower_one, 0.0, li / bs)
    tl.store(yr_ptr + start * n + cols, y0r, mask=cm)
    tl.store(yi_ptr + start * n + cols, y0i, mask=cm)
    tl.store(yr_ptr + s1 * n + cols, y1r, mask=cm & cplx)
    tl.store(yi_ptr + s1 * n + cols, y1i, mask=cm & cplx)
    tl.debug_barrier()
    i = tl.max(tl.where(cm, start, 0), axis=0) - 1
    while i >= 0:
        two = tl.load(wi_ptr + i) < 0.0
        top = tl.where(two, i - 1, i)
        # r_row = Σ_{j > i} T[row, j]·y_j for the rows top and i
        r1r = tl.zeros([BC], dtype=h_ptr.dtype.element_ty)
        r1i = tl.zeros([BC], dtype=h_ptr.dtype.element_ty)
        r2r = tl.zeros([BC], dtype=h_ptr.dtype.element_ty)
        r2i = tl.zeros([BC], dtype=h_ptr.dtype.element_ty)
        for j0 in range(i + 1, n, BJ):
            j = j0 + aj
            jm = j < n
            mask = jm[:, None] & cm[None, :]
            yr = tl.load(yr_ptr + j[:, None] * n + cols[None, :], mask=mask, other=0.0)
            yi = tl.load(yi_ptr + j[:, None] * n + cols[None, :], mask=mask, other=0.0)
            t2 = tl.load(h_ptr + i * n + j, mask=jm, other=0.0)
            t1 = tl.load(h_ptr + top * n + j, mask=jm, other=0.0)
            r2r += tl.sum(t2[:, None] * yr, axis=0)
            r2i += tl.sum(t2[:, None] * yi, axis=0)
            r1r += tl.sum(t1[:, None] * yr, axis=0)
            r1i += tl.sum(t1[:, None] * yi, axis=0)
        act = cm & (i < start)
        if two:
            a_top = tl.load(h_ptr + top * (n + 1))  # not `a`: that name holds a vector above
            bq1 = tl.load(h_ptr + top * n + i)
            cc1 = tl.load(h_ptr + i * n + top)
            d1 = tl.load(h_ptr + i * (n + 1))
            # [[a − λ, b], [c, d − λ]]·[y1; y2] = −[r1; r2]
            a11r = a_top - lr
            a22r = d1 - lr
            detr = a11r * a22r - li * li - bq1 * cc1
            deti = -li * a22r - a11r * li
            tiny = eps * norm
            detr = tl.where((detr == 0.0) & (deti == 0.0), tiny, detr)
            n1r = -(r1r * a22r + r1i * li) + bq1 * r2r
            n1i = -(r1i * a22r - r1r * li) + bq1 * r2i
            n2r = -(a11r * r2r + li * r2i) + cc1 * r1r
            n2i = -(a11r * r2i - li * r2r) + cc1 * r1i
            y1r, y1i = _cdiv(n1r, n1i, detr, deti)
            y2r, y2i = _cdiv(n2r, n2i, detr, deti)
            tl.store(yr_ptr + top * n + cols, y1r, mask=act)
            tl.store(yi_ptr + top * n + cols, y1i, mask=act)
            tl.store(yr_ptr + i * n + cols, y2r, mask=act)
            tl.store(yi_ptr + i * n + cols, y2i, mask=act)
        else:
            dr = tl.load(h_ptr + i * (n + 1)) - lr
            di = -li
            dr = tl.where((dr == 0.0) & (di == 0.0), eps * norm, dr)
            y2r, y2i = _cdiv(-r2r, -r2i, dr, di)
            tl.store(yr_ptr + i * n + cols, y2r, mask=act)
            tl.store(yi_ptr + i * n + cols, y2i, mask=act)
        tl.debug_barrier()
        i = top - 1


@triton.jit
def _zy_kernel(zt_ptr, yr_ptr, yi_ptr, vr_ptr, vi_ptr, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # V = Z·Y (real and imaginary parts), Z = Ztᵀ
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BM + tl.arange(0, BM).to(tl.int64)
    cols = tl.program_id(1) * BN + tl.arange(0, BN).to(tl.int64)
    accr = tl.zeros([BM, BN], dtype=zt_ptr.dtype.element_ty)
    acci = tl.zeros([BM, BN], dtype=zt_ptr.dtype.element_ty)
    for k0 in range(0, n, BK):
        kk = k0 + tl.arange(0, BK).to(tl.int64)
        km = kk < n
        z = tl.load(zt_ptr + b * n * n + kk[None, :] * n + rows[:, None],
                    mask=km[None, :] & (rows < n)[:, None], other=0.0)
        yr = tl.load(yr_ptr + b * n * n + kk[:, None] * n + cols[None, :],
                     mask=km[:, None] & (cols < n)[None, :], other=0.0)
        yi = tl.load(yi_ptr + b * n * n + kk[:, None] * n + cols[None, :],
                     mask=km[:, None] & (cols < n)[None, :], other=0.0)
        accr += tl.dot(z, yr, input_precision="ieee")
        acci += tl.dot(z, yi, input_precision="ieee")
    mask = (rows < n)[:, None] & (cols < n)[None, :]
    offs = b * n * n + rows[:, None] * n + cols[None, :]
    tl.store(vr_ptr + offs, accr, mask=mask)
    tl.store(vi_ptr + offs, acci, mask=mask)


@triton.jit
def _eig_out_kernel(vr_ptr, vi_ptr, wr_ptr, wi_ptr, vals_ptr, vecs_ptr, n, BR: tl.constexpr, BC: tl.constexpr):
    # unit-norm columns of V into the complex eigenvector output, eigenvalues into theirs (interleaved re/im)
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    b = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BC + tl.arange(0, BC).to(tl.int64)
    cm = cols < n
    ar = tl.arange(0, BR).to(tl.int64)
    sq = tl.zeros([BC], dtype=vr_ptr.dtype.element_ty)
    for r0 in range(0, n, BR):
        rows = r0 + ar
        mask = (rows < n)[:, None] & cm[None, :]
        offs = b * n * n + rows[:, None] * n + cols[None, :]
        xr = tl.load(vr_ptr + offs, mask=mask, other=0.0)
        xi = tl.load(vi_ptr + offs, mask=mask, other=0.0)
        sq += tl.sum(xr * xr + xi * xi, axis=0)
    inv = 1.0 / tl.sqrt(tl.where(sq > 0.0, sq, 1.0))
    for r0 in range(0, n, BR):
        rows = r0 + ar
        mask = (rows < n)[:, None] & cm[None, :]
        offs = b * n * n + rows[:, None] * n + cols[None, :]
        xr = tl.load(vr_ptr + offs, mask=mask, other=0.0) * inv[None, :]
        xi = tl.load(vi_ptr + offs, mask=mask, other=0.0) * inv[None, :]
        tl.store(vecs_ptr + 2 * offs, xr, mask=mask)
        tl.store(vecs_ptr + 2 * offs + 1, xi, mask=mask)
    if tl.program_id(0) >= 0:
        lr = tl.load(wr_ptr + b * n + cols, mask=cm, other=0.0)
        li = tl.load(wi_ptr + b * n + cols, mask=cm, other=0.0)
        tl.store(vals_ptr + 2 * (b * n + cols), lr, mask=cm)
        tl.store(vals_ptr + 2 * (b * n + cols) + 1, li, mask=cm)


@triton.jit
def _eye_kernel(q_ptr, n, BR: tl.constexpr):
    n = tl.zeros((), tl.int64) + n  # int64 index arithmetic throughout
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BR + tl.arange(0, BR).to(tl.int64)
    mask = (r < n)[:, None] & (c < n)[None, :]
    v = tl.where(r[:, None] == c[None, :], 1.0, 0.0).to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + b * n * n + r[:, None] * n + c[None, :], v, mask=mask)


def _eig_core(A):
    """(wr, wi, vr, vi) in float64: eigenvalues and the (unnormalized) complex eigenvectors V = Z·Y."""
    n = A.shape[-1]
    a = A.reshape(-1, n, n)
    nb = a.shape[0]
    f64 = torch.float64
    h = torch.empty((nb, n, n), dtype=f64, device=A.device)
    zt = torch.empty((nb, n, n), dtype=f64, device=A.device)
    grid2 = (triton.cdiv(n, 32), triton.cdiv(n, 32), nb)
    _copy_in_kernel[grid2](a, h, n, n, n, 0, a.stride(0), a.stride(1), a.stride(2), BR=32, BC=32)
    _eye_kernel[grid2](zt, n, BR=32)
    tiny = 1e-290
    BR, BC = 64, 32
    for j in range(n - 2):
        tiles_h = triton.cdiv(n - j - 1, BC)
        _hess_left_kernel[(tiles_h + triton.cdiv(n, BC), nb)](h, zt, n, j, tiles_h, tiny, BR=BR, BC=BC)
        _hess_right_kernel[(triton.cdiv(n, BR), nb)](h, n, j, tiny, BR=BR, BC=BC)
    if n > 2:
        _hess_finish_kernel[(n - 2, nb)](h, n, tiny, BC=BC)
    wr = torch.empty((nb, n), dtype=f64, device=A.device)
    wi = torch.empty((nb, n), dtype=f64, device=A.device)
    nrm = torch.empty((nb,), dtype=f64, device=A.device)
    eps = 2.0 ** -52
    _hqr_kernel[(nb,)](h, zt, wr, wi, nrm, n, eps, 60 * max(n, 1), BLOCK=min(256, max(16, triton.next_power_of_2(n))))
    yr = torch.empty((nb, n, n), dtype=f64, device=A.device)
    yi = torch.empty((nb, n, n), dtype=f64, device=A.device)
    BCV = min(64, max(16, triton.next_power_of_2(n)))
    _eigvec_kernel[(triton.cdiv(n, BCV), nb)](h, wr, wi, nrm, yr, yi, n, eps, BJ=64, BC=BCV)
    vr = torch.empty((nb, n, n), dtype=f64, device=A.device)
    vi = torch.empty((nb, n, n), dtype=f64, device=A.device)
    _zy_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](zt, yr, yi, vr, vi, n, BM=32, BN=32, BK=32)
    return wr, wi, vr, vi


@triton.jit
def _atan2(y, x):
    # atan2 in float64 without libdevice: reduce to |t| ≤ tan(π/12), then the Taylor series (error < 1e-17).
    # Constants are built as float64 tensors (a Python float literal would be rounded to float32).
    one = tl.full((), 1.0, tl.float64)
    ax = tl.abs(x)
    ay = tl.abs(y)
    hi = tl.maximum(ax, ay)
    t = tl.minimum(ax, ay) / tl.where(hi > 0.0, hi, one)
    big = t > tl.full((), 0.2679491924311227, tl.float64)  # tan(π/12)
    r3 = tl.full((), 1.7320508075688772, tl.float64)
    t = tl.where(big, (t * r3 - 1.0) / (t + r3), t)
    t2 = t * t
    s = one / 27.0
    for kk in tl.static_range(13):
        s = one / (25 - 2 * kk) - t2 * s
    a = t * s
    a = tl.where(big, a + tl.full((), 0.5235987755982988, tl.float64), a)  # + π/6
    a = tl.where(ay > ax, tl.full((), 1.5707963267948966, tl.float64) - a, a)
    a = tl.where(x < 0.0, tl.full((), 3.141592653589793, tl.float64) - a, a)
    return tl.where(y < 0.0, -a, a)


@triton.jit
def _mpow_build_kernel(vr_ptr, vi_ptr, wr_ptr, wi_ptr, aug_ptr, n, kr_hi, kr_lo, ki_hi, ki_lo, BR: tl.constexpr,
                       BC: tl.constexpr):
    # The real form of the complex system Vᵀ·Xᵀ = (V·diag(λ^k))ᵀ: aug (2n × 3n) = [[Vrᵀ, −Viᵀ, Re Wᵀ], [Viᵀ, Vrᵀ, Im Wᵀ]]
    n = tl.zeros((), tl.int64) + n
    # k arrives as float32 pairs (hi + lo) so that float64 keeps all of its digits
    kr = (tl.zeros((), tl.float64) + kr_hi) + kr_lo
    ki = (tl.zeros((), tl.float64) + ki_hi) + ki_lo
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    rm = r < 2 * n
    cmk = c < 3 * n
    lower = r >= n
    rr = tl.where(lower, r - n, r)  # row of M / W
    blk = c // n
    cc = c - blk * n  # column inside the block
    vbase = b * n * n
    # λ^k for the eigenvalue of column rr of V: exp(k·log λ), principal log
    lr = tl.load(wr_ptr + b * n + rr, mask=rm, other=1.0)
    li = tl.load(wi_ptr + b * n + rr, mask=rm, other=0.0)
    mod = tl.sqrt(lr * lr + li * li)
    lg = tl.log(tl.where(mod > 0.0, mod, 1.0))
    th = _atan2(li, lr)
    ex = tl.exp(kr * lg - ki * th)
    ang = kr * th + ki * lg
    zero_pow = (kr == 0.0) & (ki == 0.0)
    mur = tl.where(zero_pow, 1.0, tl.where(mod > 0.0, ex * tl.cos(ang), 0.0))
    mui = tl.where(zero_pow, 0.0, tl.where(mod > 0.0, ex * tl.sin(ang), 0.0))
    mask = rm[:, None] & cmk[None, :]
    # M[rr, cc] = V[cc, rr]; W[cc, rr] = V[cc, rr]·μ_rr
    offs = vbase + cc[None, :] * n + rr[:, None]
    v_r = tl.load(vr_ptr + offs, mask=mask, other=0.0)
    v_i = tl.load(vi_ptr + offs, mask=mask, other=0.0)
    w_r = v_r * mur[:, None] - v_i * mui[:, None]
    w_i = v_r * mui[:, None] + v_i * mur[:, None]
    low = lower[:, None]
    val = tl.where(blk[None, :] == 0, tl.where(low, v_i, v_r),
                   tl.where(blk[None, :] == 1, tl.where(low, v_r, -v_i), tl.where(low, w_i, w_r)))
    tl.store(aug_ptr + b * (2 * n) * (3 * n) + r[:, None] * (3 * n) + c[None, :], val, mask=mask)


@triton.jit
def _mpow_out_kernel(y_ptr, out_ptr, n, BR: tl.constexpr):
    # X = Yᵀ: out[r, c] = Y[c, r] + i·Y[n + c, r] (Y (2n × n), out interleaved re/im)
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BR + tl.arange(0, BR).to(tl.int64)
    mask = (r < n)[:, None] & (c < n)[None, :]
    ybase = y_ptr + b * 2 * n * n
    yr = tl.load(ybase + c[None, :] * n + r[:, None], mask=mask, other=0.0)
    yi = tl.load(ybase + (n + c[None, :]) * n + r[:, None], mask=mask, other=0.0)
    o = out_ptr + 2 * (b * n * n + r[:, None] * n + c[None, :])
    tl.store(o, yr, mask=mask)
    tl.store(o + 1, yi, mask=mask)


def matrix_power_eig(A, k):
    n = A.shape[-1]
    cdt = torch.complex128 if A.dtype == torch.float64 else torch.complex64
    out = torch.empty(A.shape, dtype=cdt, device=A.device)
    if out.numel() == 0:
        return out
    kc = complex(k)
    wr, wi, vr, vi = _eig_core(A)
    nb = wr.shape[0]
    n2, N = 2 * n, 3 * n
    aug = torch.empty((nb, n2, N), dtype=torch.float64, device=A.device)
    kr_hi, ki_hi = _f32(kc.real), _f32(kc.imag)
    _mpow_build_kernel[(triton.cdiv(n2, 32), triton.cdiv(N, 32), nb)](vr, vi, wr, wi, aug, n, kr_hi, kc.real - kr_hi,
                                                                      ki_hi, kc.imag - ki_hi, BR=32, BC=32)
    _lu_factor(aug, n2, N, n2, True)
    y = torch.empty((nb, n2, n), dtype=torch.float64, device=A.device)
    _trsm(aug, aug[:, :, n2:], y, lower=False, unit=False)
    _mpow_out_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](y, torch.view_as_real(out), n, BR=32)
    return out
