import torch
import triton
import triton.language as tl

# SVD without a bidiagonalization: A (or Aᵀ when wide) = Q1·R by blocked Householder QR; one-sided Jacobi
# (Hestenes) on R's columns gives B = R·V with orthogonal columns b_j = σ_j·u_j, one launch per round of a
# round-robin tournament (all disjoint column pairs of the round in parallel), sweeps until none rotates;
# the columns are sorted by σ, a second Householder QR of the sorted B yields an orthogonal U_r (its sign-fixed
# Q, which also completes the basis where σ = 0), and U = Q1·[[U_r, 0], [0, I]]. Slower than cuSOLVER's
# gesvd: every Jacobi round is a launch (n − 1 per sweep, several sweeps) and the QR panels run on one SM.

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


# ---- blocked Householder QR (LAPACK geqrf's scheme with the compact WY form I − V·T·Vᵀ per panel) ------------
# W (nb, m, n): R on and above the diagonal, the Householder vectors v_j below it (v_j[j] = 1 implicit);
# H_j = I − tau_j·v_j·v_jᵀ (tau_j = 0 when the column below the diagonal is already zero, as LAPACK's larfg).


@triton.jit
def _qr_panel_kernel(w_ptr, tau_ptr, t_ptr, m, n, K, j0, steps, NP, tiny, NB: tl.constexpr, BR: tl.constexpr):
    # One program per matrix: unblocked Householder QR of the panel W[j0:m, j0:j0+NB], then its T factor.
    m = tl.zeros((), tl.int64) + m
    n = tl.zeros((), tl.int64) + n
    K = tl.zeros((), tl.int64) + K
    j0 = tl.zeros((), tl.int64) + j0
    steps = tl.zeros((), tl.int64) + steps
    NP = tl.zeros((), tl.int64) + NP
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * m * n
    tau_ptr += b * K
    t_ptr += (b * NP + j0 // NB) * NB * NB
    pc = j0 + tl.arange(0, NB).to(tl.int64)
    pmask = pc < n
    ar = tl.arange(0, BR).to(tl.int64)
    for jj in range(0, steps):
        j = j0 + jj
        x0 = tl.load(w_ptr + j.to(tl.int64) * n + j)
        amax = tl.abs(x0)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            x = tl.load(w_ptr + rows.to(tl.int64) * n + j, mask=rows < m, other=0.0)
            amax = tl.maximum(amax, tl.max(tl.abs(x), axis=0))
        # the norm of the column scaled by its largest entry, so that tiny columns do not underflow; a column
        # below `tiny` (near the dtype's underflow) counts as zero: no reflection
        inv = tl.where(amax > tiny, 1.0 / tl.where(amax > tiny, amax, 1.0), 0.0)
        sq = tl.zeros((), x0.dtype)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            x = tl.load(w_ptr + rows.to(tl.int64) * n + j, mask=rows < m, other=0.0) * inv
            sq += tl.sum(x * x, axis=0)
        active = sq > 0.0
        x0s = x0 * inv
        norm = amax * tl.sqrt(x0s * x0s + sq)
        beta = tl.where(x0 >= 0.0, -norm, norm)
        safe_beta = tl.where(active, beta, 1.0)
        tau = tl.where(active, (beta - x0) / safe_beta, 0.0)
        scale = tl.where(active, 1.0 / tl.where(active, x0 - beta, 1.0), 0.0)
        # w = vᵀ·P[j:, j+1:] over the panel columns right of j (v = [1, x·scale])
        rowj = tl.load(w_ptr + j.to(tl.int64) * n + pc, mask=pmask, other=0.0)
        right = pc > j
        wv = tl.where(right, rowj, 0.0)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            mask = (rows < m)[:, None] & pmask[None, :]
            tile = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :], mask=mask, other=0.0)
            v = tl.sum(tl.where(pc[None, :] == j, tile, 0.0), axis=1) * scale
            wv += tl.sum(tl.where(right[None, :], tile * v[:, None], 0.0), axis=0)
        tl.debug_barrier()
        # P[j:, j+1:] -= tau·v·wᵀ; column j becomes (beta, v)
        tl.store(w_ptr + j.to(tl.int64) * n + pc, tl.where(pc == j, tl.where(active, beta, x0), rowj - tau * wv),
                 mask=pmask)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            mask = (rows < m)[:, None] & pmask[None, :]
            ptrs = w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :]
            tile = tl.load(ptrs, mask=mask, other=0.0)
            v = tl.sum(tl.where(pc[None, :] == j, tile, 0.0), axis=1) * scale
            tile = tl.where(pc[None, :] == j, v[:, None], tile - tau * v[:, None] * wv[None, :])
            tl.store(ptrs, tile, mask=mask)
        tl.store(tau_ptr + j, tau)
        tl.debug_barrier()
    # T (upper triangular, I − V·T·Vᵀ = H_j0···H_j0+steps−1): T_ii = tau_i, T[:i, i] = −tau_i·T[:i, :i]·(Vᵀ·v_i)[:i]
    g = tl.zeros([NB, NB], dtype=w_ptr.dtype.element_ty)
    for r0 in range(j0, m, BR):
        rows = r0 + ar
        mask = (rows < m)[:, None] & pmask[None, :]
        tile = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :], mask=mask, other=0.0)
        vt = tl.where(rows[:, None] > pc[None, :], tile, tl.where(rows[:, None] == pc[None, :], 1.0, 0.0))
        vt = tl.where(mask & (pc < j0 + steps)[None, :], vt, 0.0)
        g += tl.dot(tl.trans(vt), vt, input_precision="ieee").to(g.dtype)
    taus = tl.load(tau_ptr + pc, mask=pc < j0 + steps, other=0.0)
    r = tl.arange(0, NB).to(tl.int64)
    t = tl.zeros([NB, NB], dtype=w_ptr.dtype.element_ty)
    for i in tl.static_range(NB):
        gi = tl.where(r < i, tl.sum(tl.where(r[None, :] == i, g, 0.0), axis=1), 0.0)
        ti = tl.sum(tl.where(r == i, taus, 0.0), axis=0)
        tv = tl.sum(t * gi[None, :], axis=1)
        col = tl.where(r < i, -ti * tv, tl.where(r == i, ti, 0.0))
        t = tl.where(r[None, :] == i, col[:, None], t)
    tl.store(t_ptr + r[:, None] * NB + r[None, :], t)


@triton.jit
def _qr_apply_kernel(w_ptr, t_ptr, c_ptr, m, n, NC, j0, c0, NP, sc_b, sc_r, sc_c,
                     TRANS: tl.constexpr, NB: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr,
                     PREC: tl.constexpr):
    # C[j0:m, c0 + tile] ← (I − V·T·Vᵀ)ᵀ·C (TRANS) or (I − V·T·Vᵀ)·C, with V the panel's vectors in W
    m = tl.zeros((), tl.int64) + m
    n = tl.zeros((), tl.int64) + n
    NC = tl.zeros((), tl.int64) + NC
    j0 = tl.zeros((), tl.int64) + j0
    c0 = tl.zeros((), tl.int64) + c0
    NP = tl.zeros((), tl.int64) + NP
    b = tl.program_id(1).to(tl.int64)
    w_ptr += b * m * n
    c_ptr += b * sc_b
    t_ptr += (b * NP + j0 // NB) * NB * NB
    pc = j0 + tl.arange(0, NB).to(tl.int64)
    pmask = pc < n
    cols = c0 + tl.program_id(0) * BC + tl.arange(0, BC).to(tl.int64)
    cmask = cols < NC
    ar = tl.arange(0, BR).to(tl.int64)
    acc = tl.zeros([NB, BC], dtype=w_ptr.dtype.element_ty)
    for r0 in range(j0, m, BR):
        rows = r0 + ar
        rmask = rows < m
        tile = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :], mask=rmask[:, None] & pmask[None, :],
                       other=0.0)
        vt = tl.where(rows[:, None] > pc[None, :], tile, tl.where(rows[:, None] == pc[None, :], 1.0, 0.0))
        ct = tl.load(c_ptr + rows[:, None].to(tl.int64) * sc_r + cols[None, :].to(tl.int64) * sc_c,
                     mask=rmask[:, None] & cmask[None, :], other=0.0)
        acc += tl.dot(tl.trans(vt), ct, input_precision=PREC).to(acc.dtype)
    r = tl.arange(0, NB).to(tl.int64)
    if TRANS:
        tm = tl.load(t_ptr + r[None, :] * NB + r[:, None])
    else:
        tm = tl.load(t_ptr + r[:, None] * NB + r[None, :])
    z = tl.dot(tm, acc, input_precision=PREC).to(acc.dtype)
    for r0 in range(j0, m, BR):
        rows = r0 + ar
        rmask = rows < m
        tile = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :], mask=rmask[:, None] & pmask[None, :],
                       other=0.0)
        vt = tl.where(rows[:, None] > pc[None, :], tile, tl.where(rows[:, None] == pc[None, :], 1.0, 0.0))
        ptrs = c_ptr + rows[:, None].to(tl.int64) * sc_r + cols[None, :].to(tl.int64) * sc_c
        mask = rmask[:, None] & cmask[None, :]
        ct = tl.load(ptrs, mask=mask, other=0.0)
        ct = ct - tl.dot(vt, z, input_precision=PREC).to(ct.dtype)
        tl.store(ptrs, ct, mask=mask)


_QR_NB = 16


def _qr_factor(w, m, n):
    """Householder QR of w (nb, m, n) in place; returns (tau (nb, k), T (nb, panels, NB, NB))."""
    nb = w.shape[0]
    k = min(m, n)
    NB = _QR_NB
    NP = max(triton.cdiv(k, NB), 1)
    tau = torch.empty((nb, max(k, 1)), dtype=w.dtype, device=w.device)
    t = torch.empty((nb, NP, NB, NB), dtype=w.dtype, device=w.device)
    tiny = 1e-30 if w.dtype == torch.float32 else 1e-290
    for j0 in range(0, k, NB):
        steps = min(NB, k - j0)
        _qr_panel_kernel[(nb,)](w, tau, t, m, n, k, j0, steps, NP, tiny, NB=NB, BR=64)
        c0 = j0 + NB
        if c0 < n:
            BC = 32
            _qr_apply_kernel[(triton.cdiv(n - c0, BC), nb)](w, t, w, m, n, n, j0, c0, NP, m * n, n, 1,
                                                           TRANS=True, NB=NB, BR=64, BC=BC, PREC="ieee")
    return tau, t


@triton.jit
def _eye_kernel(q_ptr, m, qc, BR: tl.constexpr, BC: tl.constexpr):
    m = tl.zeros((), tl.int64) + m
    qc = tl.zeros((), tl.int64) + qc
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    mask = (r < m)[:, None] & (c < qc)[None, :]
    v = tl.where(r[:, None] == c[None, :], 1.0, 0.0).to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + b * m * qc + r[:, None].to(tl.int64) * qc + c[None, :], v, mask=mask)


def _qr_form_q(w, t, m, n, q):
    """q (nb, m, qc), contiguous ← H_0···H_(k−1)·I[:, :qc], the panels applied last to first."""
    nb, _, qc = q.shape
    k = min(m, n)
    NB = _QR_NB
    NP = t.shape[1]
    _eye_kernel[(triton.cdiv(m, 32), triton.cdiv(qc, 32), nb)](q, m, qc, BR=32, BC=32)
    BC = 32
    for j0 in reversed(range(0, k, NB)):
        _qr_apply_kernel[(triton.cdiv(qc, BC), nb)](w, t, q, m, n, qc, j0, 0, NP, m * qc, qc, 1,
                                                   TRANS=False, NB=NB, BR=64, BC=BC, PREC="ieee")


def _apply_q(w, t, m, n, c):
    """c (nb, m, nc), any strides ← H_0···H_(k−1)·c: the block reflectors of the QR in w, last to first."""
    nb, _, nc = c.shape
    BC = 32
    for j0 in reversed(range(0, min(m, n), _QR_NB)):
        _qr_apply_kernel[(triton.cdiv(nc, BC), nb)](w, t, c, m, n, nc, j0, 0, t.shape[1], c.stride(0), c.stride(1),
                                                   c.stride(2), TRANS=False, NB=_QR_NB, BR=64, BC=BC, PREC="ieee")
# ---- one-sided Jacobi (Hestenes) on the columns of R ---------------------------------------------------------
# Bt holds the columns of B = R·V as rows (contiguous), Vt the columns of V. One launch per round of a
# round-robin tournament: the n/2 disjoint column pairs of the round are orthogonalized in parallel (one
# program per pair); a sweep is n − 1 rounds (n rounded up to even). Sweeps repeat until one rotates nothing.
# Small matrices (n ≤ 128 in float32, 64 in float64) run the whole iteration in registers, one program per
# matrix, instead.


@triton.jit
def _scale_kernel(w_ptr, scale_ptr, m, n, F64: tl.constexpr, BLOCK: tl.constexpr):
    # Scales each matrix of W in place by a power of two that brings its largest entry into [1, 2), before the QR:
    # a matrix of tiny entries would otherwise have its columns taken for zero by the QR (entries below 1e-30)
    # and its Jacobi sums of squares underflow (1e-32² is below float32's range). Only exponents change (exact);
    # σ is divided by the same factor (_sigma_kernel), U and V do not depend on it.
    total = (tl.zeros((), tl.int64) + m) * n
    base = w_ptr + tl.program_id(0).to(tl.int64) * total
    amax = tl.zeros((), w_ptr.dtype.element_ty)
    for k0 in range(0, total, BLOCK):
        k = k0 + tl.arange(0, BLOCK).to(tl.int64)
        amax = tl.maximum(amax, tl.max(tl.abs(tl.load(base + k, mask=k < total, other=0.0)), axis=0))
    if F64:
        e = (amax.to(tl.int64, bitcast=True) >> 52) & 0x7FF
        scale = (tl.maximum(2046 - e, 1) << 52).to(tl.float64, bitcast=True)
    else:
        e = (amax.to(tl.int32, bitcast=True) >> 23) & 0xFF
        scale = (tl.maximum(254 - e, 1) << 23).to(tl.float32, bitcast=True)
    for k0 in range(0, total, BLOCK):
        k = k0 + tl.arange(0, BLOCK).to(tl.int64)
        tl.store(base + k, tl.load(base + k, mask=k < total, other=0.0) * scale, mask=k < total)
    tl.store(scale_ptr + tl.program_id(0), scale)


@triton.jit
def _r_to_bt_kernel(w_ptr, bt_ptr, vt_ptr, m, n, BR: tl.constexpr):
    # Bt[j, i] = R[i, j] (R = the upper triangle of W's first n rows), Vt = I
    m = tl.zeros((), tl.int64) + m
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(2).to(tl.int64)
    j = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    i = tl.program_id(1) * BR + tl.arange(0, BR).to(tl.int64)
    mask = (j < n)[:, None] & (i < n)[None, :]
    r = tl.load(w_ptr + b * m * n + i[None, :].to(tl.int64) * n + j[:, None], mask=mask & (i[None, :] <= j[:, None]),
                other=0.0)
    tl.store(bt_ptr + b * n * n + j[:, None].to(tl.int64) * n + i[None, :], r, mask=mask)
    eye = tl.where(j[:, None] == i[None, :], 1.0, 0.0).to(vt_ptr.dtype.element_ty)
    tl.store(vt_ptr + b * n * n + j[:, None].to(tl.int64) * n + i[None, :], eye, mask=mask)


@triton.jit
def _jacobi_kernel(bt_ptr, vt_ptr, cnt_ptr, n, N, s, thr, BLOCK: tl.constexpr):
    n = tl.zeros((), tl.int64) + n
    N = tl.zeros((), tl.int64) + N
    s = tl.zeros((), tl.int64) + s
    b = tl.program_id(1).to(tl.int64)
    i = tl.program_id(0)
    # circle method: player N−1 is fixed, the others rotate
    p = tl.where(i == 0, N - 1, (s + i) % (N - 1))
    q = tl.where(i == 0, s, (s - i + N - 1) % (N - 1))
    lo = tl.minimum(p, q)
    hi = tl.maximum(p, q)
    if hi < n:
        bp = bt_ptr + b * n * n + lo.to(tl.int64) * n
        bq = bt_ptr + b * n * n + hi.to(tl.int64) * n
        vp = vt_ptr + b * n * n + lo.to(tl.int64) * n
        vq = vt_ptr + b * n * n + hi.to(tl.int64) * n
        alpha = tl.zeros((), bt_ptr.dtype.element_ty)
        beta = tl.zeros((), bt_ptr.dtype.element_ty)
        gamma = tl.zeros((), bt_ptr.dtype.element_ty)
        for c0 in range(0, n, BLOCK):
            c = c0 + tl.arange(0, BLOCK).to(tl.int64)
            x = tl.load(bp + c, mask=c < n, other=0.0)
            y = tl.load(bq + c, mask=c < n, other=0.0)
            alpha += tl.sum(x * x, axis=0)
            beta += tl.sum(y * y, axis=0)
            gamma += tl.sum(x * y, axis=0)
        if tl.abs(gamma) > thr * tl.sqrt(alpha) * tl.sqrt(beta):
            zeta = (beta - alpha) / (2.0 * gamma)
            az = tl.abs(zeta)
            root = tl.where(az > 1.0, az * tl.sqrt(1.0 + (1.0 / az) * (1.0 / az)), tl.sqrt(1.0 + az * az))
            t = tl.where(zeta >= 0.0, 1.0, -1.0) / (az + root)
            cs = 1.0 / tl.sqrt(1.0 + t * t)
            sn = cs * t
            for c0 in range(0, n, BLOCK):
                c = c0 + tl.arange(0, BLOCK).to(tl.int64)
                mask = c < n
                x = tl.load(bp + c, mask=mask, other=0.0)
                y = tl.load(bq + c, mask=mask, other=0.0)
                tl.store(bp + c, cs * x - sn * y, mask=mask)
                tl.store(bq + c, sn * x + cs * y, mask=mask)
                x = tl.load(vp + c, mask=mask, other=0.0)
                y = tl.load(vq + c, mask=mask, other=0.0)
                tl.store(vp + c, cs * x - sn * y, mask=mask)
                tl.store(vq + c, sn * x + cs * y, mask=mask)
            tl.atomic_add(cnt_ptr, 1)


@triton.jit
def _jacobi_reg_kernel(bt_ptr, vt_ptr, n, N, thr, max_sweeps, NP: tl.constexpr, PREC: tl.constexpr):
    # Small matrices: one program per matrix keeps B and V in registers ([NP, NP] tiles, column j = b_j, v_j)
    # and runs every round of every sweep; a round's n/2 rotations form one orthogonal matrix J (a 2×2 rotation
    # on each column pair), applied as B·J and V·J with tl.dot.
    n = tl.zeros((), tl.int64) + n
    N = tl.zeros((), tl.int64) + N
    max_sweeps = tl.zeros((), tl.int64) + max_sweeps
    b = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, NP).to(tl.int64)
    mask = (r < n)[:, None] & (r < n)[None, :]
    offs = b * n * n + r[None, :].to(tl.int64) * n + r[:, None]  # [row, column j] = Bt[j, row]
    bm = tl.load(bt_ptr + offs, mask=mask, other=0.0)
    vm = tl.load(vt_ptr + offs, mask=mask, other=0.0)
    dt = bm.dtype
    eye = r[:, None] == r[None, :]
    sweep = tl.zeros((), tl.int32)
    rotated = tl.full((), 1, tl.int32)
    while (sweep < max_sweeps) & (rotated > 0):
        rotated = tl.zeros((), tl.int32)
        for s in range(0, N - 1):
            # circle method: column N−1 meets s, the others meet their mirror image 2s − j (mod N − 1)
            partner = tl.where(r == N - 1, s, tl.where(r == s, N - 1, (2 * s - r + 2 * (N - 1)) % (N - 1)))
            valid = (r < n) & (partner < n)
            pm = r[:, None] == partner[None, :]
            bp = tl.dot(bm, pm.to(dt), input_precision=PREC)  # column j = b_partner(j)
            alpha = tl.sum(bm * bm, axis=0)
            beta = tl.sum(bp * bp, axis=0)
            gamma = tl.sum(bm * bp, axis=0)
            is_lo = r < partner
            a_lo = tl.where(is_lo, alpha, beta)
            a_hi = tl.where(is_lo, beta, alpha)
            rot = valid & (tl.abs(gamma) > thr * tl.sqrt(alpha) * tl.sqrt(beta))
            zeta = (a_hi - a_lo) / (2.0 * tl.where(rot, gamma, 1.0))
            az = tl.abs(zeta)
            inv = 1.0 / tl.maximum(az, 1.0)
            root = tl.where(az > 1.0, az * tl.sqrt(1.0 + inv * inv), tl.sqrt(1.0 + az * az))
            t = tl.where(zeta >= 0.0, 1.0, -1.0) / (az + root)
            cs = 1.0 / tl.sqrt(1.0 + t * t)
            c_self = tl.where(rot, cs, 1.0)
            c_other = tl.where(rot, tl.where(is_lo, -cs * t, cs * t), 0.0)
            jm = tl.where(eye, c_self[None, :], tl.where(pm, c_other[None, :], 0.0)).to(dt)
            bm = tl.dot(bm, jm, input_precision=PREC)
            vm = tl.dot(vm, jm, input_precision=PREC)
            rotated += tl.sum(rot.to(tl.int32), axis=0)
        sweep += 1
    tl.store(bt_ptr + offs, bm, mask=mask)
    tl.store(vt_ptr + offs, vm, mask=mask)


@triton.jit
def _sigma_kernel(bt_ptr, sig_ptr, scale_ptr, n, BR: tl.constexpr, BC: tl.constexpr):
    # σ_j = ‖Bt[j]‖ / scale (after convergence the columns of B are scale·σ_j·u_j)
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(1).to(tl.int64)
    j = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    acc = tl.zeros([BR], dtype=bt_ptr.dtype.element_ty)
    for c0 in range(0, n, BC):
        c = c0 + tl.arange(0, BC).to(tl.int64)
        x = tl.load(bt_ptr + b * n * n + j[:, None].to(tl.int64) * n + c[None, :],
                    mask=(j < n)[:, None] & (c < n)[None, :], other=0.0)
        acc += tl.sum(x * x, axis=1)
    tl.store(sig_ptr + b * n + j, tl.sqrt(acc) / tl.load(scale_ptr + b), mask=j < n)


@triton.jit
def _rank_kernel(sig_ptr, rank_ptr, n, BJ: tl.constexpr, BI: tl.constexpr):
    # rank_j = position of σ_j in descending order (ties by index)
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(1).to(tl.int64)
    j = tl.program_id(0) * BJ + tl.arange(0, BJ).to(tl.int64)
    sj = tl.load(sig_ptr + b * n + j, mask=j < n, other=0.0)
    cnt = tl.zeros([BJ], dtype=tl.int32)
    for i0 in range(0, n, BI):
        i = i0 + tl.arange(0, BI).to(tl.int64)
        si = tl.load(sig_ptr + b * n + i, mask=i < n, other=0.0)
        before = (si[None, :] > sj[:, None]) | ((si[None, :] == sj[:, None]) & (i[None, :] < j[:, None]))
        cnt += tl.sum((before & (i < n)[None, :]).to(tl.int32), axis=1)
    tl.store(rank_ptr + b * n + j, cnt, mask=j < n)


def _jacobi(bt, vt, n):
    nb = bt.shape[0]
    N = n + (n % 2)
    if N < 2:
        return
    eps = 2.0 ** -52 if bt.dtype == torch.float64 else 2.0 ** -23
    thr = 4.0 * eps * max(1.0, n ** 0.5)
    NP = max(16, triton.next_power_of_2(n))
    # registers hold Bt and Vt: one launch in all. At NP = 128 the tiles spill and ptxas takes about a minute
    # (seen on an H200), so larger matrices take the one-launch-per-round path.
    if NP <= (64 if bt.dtype == torch.float32 else 32):
        _jacobi_reg_kernel[(nb,)](bt, vt, n, N, thr, 64, NP=NP, PREC="ieee", num_warps=8)
        return
    BLOCK = min(1024, triton.next_power_of_2(n))
    cnt = torch.zeros(64, dtype=torch.int32, device=bt.device)
    for sweep in range(64):
        for s in range(N - 1):
            _jacobi_kernel[(N // 2, nb)](bt, vt, cnt[sweep:], n, N, s, thr, BLOCK=BLOCK)
        if int(cnt[sweep].item()) == 0:
            break


@triton.jit
def _gather_rows_kernel(src_ptr, rank_ptr, sig_ptr, s_ptr, dst_ptr, n, rows_out, cols, sd_b, sd_r, sd_c,
                        BR: tl.constexpr, BC: tl.constexpr):
    # dst[rank_j, c] = src[j, c] for j < n with rank_j < rows_out (src (n×n) contiguous); S[rank_j] = σ_j
    n = tl.zeros((), tl.int64) + n
    rows_out = tl.zeros((), tl.int64) + rows_out
    cols = tl.zeros((), tl.int64) + cols
    b = tl.program_id(2).to(tl.int64)
    j = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    jm = j < n
    rk = tl.load(rank_ptr + b * n + j, mask=jm, other=0)
    keep = jm & (rk < rows_out)
    mask = keep[:, None] & (c < cols)[None, :]
    v = tl.load(src_ptr + b * n * n + j[:, None].to(tl.int64) * n + c[None, :], mask=mask, other=0.0)
    tl.store(dst_ptr + b * sd_b + rk[:, None].to(tl.int64) * sd_r + c[None, :].to(tl.int64) * sd_c, v, mask=mask)
    if tl.program_id(1) == 0:
        sg = tl.load(sig_ptr + b * n + j, mask=keep, other=0.0)
        tl.store(s_ptr + b * n + rk, sg, mask=keep)


@triton.jit
def _init_u_kernel(q2_ptr, w2_ptr, m_ptr, mw, nw, qc, sm_b, sm_r, sm_c, BR: tl.constexpr, BC: tl.constexpr):
    # M = [[Q2·diag(sign R2_ii), 0], [0, I]] (mw × qc), written through M's strides
    mw = tl.zeros((), tl.int64) + mw
    nw = tl.zeros((), tl.int64) + nw
    qc = tl.zeros((), tl.int64) + qc
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    inner = (r < nw)[:, None] & (c < nw)[None, :]
    q = tl.load(q2_ptr + b * nw * nw + r[:, None].to(tl.int64) * nw + c[None, :], mask=inner, other=0.0)
    d = tl.load(w2_ptr + b * nw * nw + c.to(tl.int64) * (nw + 1), mask=c < nw, other=1.0)
    q = tl.where(d[None, :] < 0.0, -q, q)
    eye = tl.where(r[:, None] == c[None, :], 1.0, 0.0)
    v = tl.where(inner, q, tl.where((r[:, None] >= nw) | (c[None, :] >= nw), eye, 0.0))
    tl.store(m_ptr + b * sm_b + r[:, None].to(tl.int64) * sm_r + c[None, :].to(tl.int64) * sm_c,
             v.to(m_ptr.dtype.element_ty), mask=(r < mw)[:, None] & (c < qc)[None, :])


def _svd_core(A):
    """The tall orientation Aw (A, or Aᵀ when m < n) reduced to B = R·V with orthogonal columns.
    Returns (transposed, mw, nw, w (QR of Aw), t, bt, vt, sig)."""
    m, n = A.shape[-2:]
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    transposed = m < n
    if transposed:
        a = a.mT
    mw, nw = a.shape[-2:]
    w = torch.empty((nb, mw, nw), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(mw, 32), triton.cdiv(nw, 32), nb)](a, w, mw, nw, nw, 0, a.stride(0), a.stride(1),
                                                                    a.stride(2), BR=32, BC=32)
    scale = torch.empty(nb, dtype=A.dtype, device=A.device)
    _scale_kernel[(nb,)](w, scale, mw, nw, F64=A.dtype == torch.float64, BLOCK=1024)
    tau, t = _qr_factor(w, mw, nw)
    bt = torch.empty((nb, nw, nw), dtype=A.dtype, device=A.device)
    vt = torch.empty((nb, nw, nw), dtype=A.dtype, device=A.device)
    _r_to_bt_kernel[(triton.cdiv(nw, 32), triton.cdiv(nw, 32), nb)](w, bt, vt, mw, nw, BR=32)
    _jacobi(bt, vt, nw)
    sig = torch.empty((nb, nw), dtype=A.dtype, device=A.device)
    _sigma_kernel[(triton.cdiv(nw, 32), nb)](bt, sig, scale, nw, BR=32, BC=64)
    return transposed, mw, nw, w, t, bt, vt, sig


def svd(A, full_matrices=True):
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    U = torch.empty((*batch, m, m if full_matrices else k), dtype=A.dtype, device=A.device)
    S = torch.empty((*batch, k), dtype=A.dtype, device=A.device)
    Vh = torch.empty((*batch, n if full_matrices else k, n), dtype=A.dtype, device=A.device)
    nb = S.numel() // max(k, 1)
    if nb == 0 or k == 0:
        return U, S, Vh
    transposed, mw, nw, w, t, bt, vt, sig = _svd_core(A)
    u3 = U.view(nb, *U.shape[-2:])
    vh3 = Vh.view(nb, *Vh.shape[-2:])
    s2 = S.view(nb, k)
    rank = torch.empty((nb, nw), dtype=torch.int32, device=A.device)
    _rank_kernel[(triton.cdiv(nw, 32), nb)](sig, rank, nw, BJ=32, BI=64)
    # the right factor of Aw: rows i of Vwᵀ are V's columns in σ order (Vh, or U's columns when transposed)
    vdst = u3.mT if transposed else vh3
    grid = (triton.cdiv(nw, 32), triton.cdiv(nw, 32), nb)
    _gather_rows_kernel[grid](vt, rank, sig, s2, vdst, nw, nw, nw, vdst.stride(0), vdst.stride(1), vdst.stride(2),
                              BR=32, BC=32)
    # U_r from the QR of B with its columns in σ order
    w2 = torch.empty((nb, nw, nw), dtype=A.dtype, device=A.device)
    w2t = w2.mT
    _gather_rows_kernel[grid](bt, rank, sig, s2, w2t, nw, nw, nw, w2t.stride(0), w2t.stride(1), w2t.stride(2),
                              BR=32, BC=32)
    _, t2 = _qr_factor(w2, nw, nw)
    q2 = torch.empty((nb, nw, nw), dtype=A.dtype, device=A.device)
    _qr_form_q(w2, t2, nw, nw, q2)
    udst = vh3.mT if transposed else u3  # mw × (mw or k)
    qc = udst.shape[-1]
    _init_u_kernel[(triton.cdiv(mw, 32), triton.cdiv(qc, 32), nb)](q2, w2, udst, mw, nw, qc, udst.stride(0),
                                                                   udst.stride(1), udst.stride(2), BR=32, BC=32)
    _apply_q(w, t, mw, nw, udst)
    return U, S, Vh
