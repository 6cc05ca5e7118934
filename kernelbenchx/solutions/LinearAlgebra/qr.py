import torch
import triton
import triton.language as tl

# Blocked Householder QR (LAPACK geqrf/orgqr's scheme): per panel of 16 columns one program per matrix
# factors the panel and builds its compact WY factor T (I − V·T·Vᵀ), then a column-parallel kernel applies
# the block reflector to the trailing columns with tl.dot (Vᵀ·C, T·(Vᵀ·C), C − V·(…)); Q is formed by applying
# the blocks to the identity in reverse order. Slower than cuSOLVER: the panel factorization runs on one SM
# per matrix and the trailing update is parallel over column tiles only.

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
def _qr_panel_kernel(w_ptr, tau_ptr, t_ptr, m, n, K, j0, steps, NP, NB: tl.constexpr, BR: tl.constexpr):
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
        # the norm of the column scaled by its largest entry, so that tiny columns do not underflow; 1/amax of a
        # subnormal amax would overflow, so such a column is first scaled up by 2^64 (exact). Only an exactly zero
        # column is skipped (no reflection): a threshold gave wrong factors for columns of tiny entries.
        pre = tl.where(amax < 8.673617379884035e-19, 1.8446744073709552e19, 1.0)  # 2^-60, 2^64
        inv = tl.where(amax > 0.0, 1.0 / tl.where(amax > 0.0, amax * pre, 1.0), 0.0)  # scaled: x·pre·inv
        sq = tl.zeros((), x0.dtype)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            x = tl.load(w_ptr + rows.to(tl.int64) * n + j, mask=rows < m, other=0.0) * pre * inv
            sq += tl.sum(x * x, axis=0)
        active = sq > 0.0
        x0s = x0 * pre * inv
        norm = amax * tl.sqrt(x0s * x0s + sq)
        beta = tl.where(x0 >= 0.0, -norm, norm)
        safe_beta = tl.where(active, beta, 1.0)
        tau = tl.where(active, (beta - x0) / safe_beta, 0.0)
        denom = tl.where(active, x0 - beta, 1.0)  # v = x / (x0 − beta), divided: 1/denom may overflow
        # w = vᵀ·P[j:, j+1:] over the panel columns right of j (v = [1, x·scale])
        rowj = tl.load(w_ptr + j.to(tl.int64) * n + pc, mask=pmask, other=0.0)
        right = pc > j
        wv = tl.where(right, rowj, 0.0)
        for r0 in range(j + 1, m, BR):
            rows = r0 + ar
            mask = (rows < m)[:, None] & pmask[None, :]
            tile = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + pc[None, :], mask=mask, other=0.0)
            v = tl.where(active, tl.sum(tl.where(pc[None, :] == j, tile, 0.0), axis=1) / denom, 0.0)
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
            v = tl.where(active, tl.sum(tl.where(pc[None, :] == j, tile, 0.0), axis=1) / denom, 0.0)
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
    for j0 in range(0, k, NB):
        steps = min(NB, k - j0)
        _qr_panel_kernel[(nb,)](w, tau, t, m, n, k, j0, steps, NP, NB=NB, BR=64)
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


@triton.jit
def _extract_r_kernel(w_ptr, r_ptr, m, n, k, rr, BR: tl.constexpr, BC: tl.constexpr):
    # R (rr×n) = the upper triangle of W's first k rows; rows from k on (complete mode, m > n) are zero
    m = tl.zeros((), tl.int64) + m
    n = tl.zeros((), tl.int64) + n
    k = tl.zeros((), tl.int64) + k
    rr = tl.zeros((), tl.int64) + rr
    rows = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    cols = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    b = tl.program_id(2).to(tl.int64)
    r, c = rows[:, None], cols[None, :]
    w = tl.load(w_ptr + b * m * n + r.to(tl.int64) * n + c, mask=(r < m) & (c < n), other=0.0)
    tl.store(r_ptr + b * rr * n + r.to(tl.int64) * n + c, tl.where((r <= c) & (r < k), w, 0.0),
             mask=(r < rr) & (c < n))


def qr(A, mode="reduced"):
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    rr = m if mode == "complete" else k
    qc = m if mode == "complete" else k
    R = torch.empty((*batch, rr, n), dtype=A.dtype, device=A.device)
    Q = torch.empty((0,) if mode == "r" else (*batch, m, qc), dtype=A.dtype, device=A.device)
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    if nb == 0 or m == 0 or n == 0:
        return Q, R
    w = torch.empty((nb, m, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32), nb)](a, w, m, n, n, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    tau, t = _qr_factor(w, m, n)
    if mode != "r":
        _qr_form_q(w, t, m, n, Q.view(nb, m, qc))
    _extract_r_kernel[(triton.cdiv(rr, 32), triton.cdiv(n, 32), nb)](w, R, m, n, k, rr, BR=32, BC=32)
    return Q, R
