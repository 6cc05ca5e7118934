import torch
import triton
import triton.language as tl

# Loops over runtime bounds are `while` loops: `for ... in range(runtime)` breaks the Triton interpreter
# under numpy >= 2.4.


@triton.jit
def _householder_kernel(a_ptr, w_ptr, tau_ptr, m, n, s_ab, s_ar, s_ac, BR: tl.constexpr, BC: tl.constexpr):
    # One program per matrix. W (m×n, contiguous) ends with R on and above the diagonal and the Householder
    # vectors v_j (implicit v_j[j] = 1) below it; H_j = I − tau_j·v_j·v_jᵀ, A = H_0·H_1···H_(k−1)·R.
    b = tl.program_id(0).to(tl.int64)
    a_ptr += b * s_ab
    w_ptr += b * m * n
    kmax = tl.minimum(m, n)
    tau_ptr += b * kmax
    ar = tl.arange(0, BR)
    ac = tl.arange(0, BC)
    r0 = 0
    while r0 < m:  # copy A into W
        rows = r0 + ar
        c0 = 0
        while c0 < n:
            cols = c0 + ac
            mask = (rows < m)[:, None] & (cols < n)[None, :]
            tile = tl.load(a_ptr + rows[:, None] * s_ar + cols[None, :] * s_ac, mask=mask)
            tl.store(w_ptr + rows[:, None] * n + cols[None, :], tile, mask=mask)
            c0 += BC
        r0 += BR
    tl.debug_barrier()
    j = 0
    while j < kmax:
        x0 = tl.load(w_ptr + j * n + j)
        sq = x0 * x0 * 0.0
        r0 = j
        while r0 < m:
            rows = r0 + ar
            x = tl.load(w_ptr + rows * n + j, mask=rows < m, other=0.0)
            sq += tl.sum(x * x, axis=0)
            r0 += BR
        norm = tl.sqrt(sq)
        active = norm > 0.0
        alpha = tl.where(x0 >= 0.0, -norm, norm)  # the new diagonal entry, of opposite sign to x0
        safe_alpha = tl.where(active, alpha, 1.0)
        tau = tl.where(active, (alpha - x0) / safe_alpha, 0.0)
        scale = tl.where(active, 1.0 / tl.where(active, x0 - alpha, 1.0), 0.0)
        tl.debug_barrier()
        r0 = j + 1
        while r0 < m:
            rows = r0 + ar
            rmask = rows < m
            x = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
            tl.store(w_ptr + rows * n + j, x * scale, mask=rmask)
            r0 += BR
        tl.store(w_ptr + j * n + j, tl.where(active, alpha, x0))
        tl.store(tau_ptr + j, tau)
        tl.debug_barrier()
        c0 = j + 1
        while c0 < n:  # W[j:, j+1:] = H_j·W[j:, j+1:]
            cols = c0 + ac
            cmask = cols < n
            w = tl.sum(tl.zeros([BR, BC], dtype=x0.dtype), axis=0)
            r0 = j
            while r0 < m:
                rows = r0 + ar
                rmask = rows < m
                v = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
                v = tl.where(rows == j, 1.0, v)
                tile = tl.load(w_ptr + rows[:, None] * n + cols[None, :], mask=rmask[:, None] & cmask[None, :],
                               other=0.0)
                w += tl.sum(v[:, None] * tile, axis=0)
                r0 += BR
            tl.debug_barrier()
            r0 = j
            while r0 < m:
                rows = r0 + ar
                rmask = rows < m
                v = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
                v = tl.where(rows == j, 1.0, v)
                mask = rmask[:, None] & cmask[None, :]
                ptrs = w_ptr + rows[:, None] * n + cols[None, :]
                tile = tl.load(ptrs, mask=mask, other=0.0)
                tl.store(ptrs, tile - tau * v[:, None] * w[None, :], mask=mask)
                r0 += BR
            tl.debug_barrier()
            c0 += BC
        j += 1


@triton.jit
def _form_q_kernel(w_ptr, tau_ptr, q_ptr, m, n, qc, BR: tl.constexpr, BC: tl.constexpr):
    # Q (m×qc) = H_0···H_(k−1)·I[:, :qc], accumulated backwards; grid (column tiles of Q, batch)
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    b = tl.program_id(1).to(tl.int64)
    kmax = tl.minimum(m, n)
    w_ptr += b * m * n
    tau_ptr += b * kmax
    q_ptr += b * m * qc
    cmask = cols < qc
    ar = tl.arange(0, BR)
    r0 = 0
    while r0 < m:
        rows = r0 + ar
        mask = (rows < m)[:, None] & cmask[None, :]
        eye = tl.where(rows[:, None] == cols[None, :], 1.0, 0.0)
        tl.store(q_ptr + rows[:, None] * qc + cols[None, :], eye.to(q_ptr.dtype.element_ty), mask=mask)
        r0 += BR
    tl.debug_barrier()
    j = kmax - 1
    while j >= 0:
        tau = tl.load(tau_ptr + j)
        w = tl.sum(tl.zeros([BR, BC], dtype=tau.dtype), axis=0)
        r0 = j
        while r0 < m:
            rows = r0 + ar
            rmask = rows < m
            v = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
            v = tl.where(rows == j, 1.0, v)
            tile = tl.load(q_ptr + rows[:, None] * qc + cols[None, :], mask=rmask[:, None] & cmask[None, :],
                           other=0.0)
            w += tl.sum(v[:, None] * tile, axis=0)
            r0 += BR
        tl.debug_barrier()
        r0 = j
        while r0 < m:
            rows = r0 + ar
            rmask = rows < m
            v = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
            v = tl.where(rows == j, 1.0, v)
            mask = rmask[:, None] & cmask[None, :]
            ptrs = q_ptr + rows[:, None] * qc + cols[None, :]
            tile = tl.load(ptrs, mask=mask, other=0.0)
            tl.store(ptrs, tile - tau * v[:, None] * w[None, :], mask=mask)
            r0 += BR
        tl.debug_barrier()
        j -= 1


@triton.jit
def _extract_r_kernel(w_ptr, r_ptr, m, n, rr, BR: tl.constexpr, BC: tl.constexpr):
    # R (rr×n) = upper triangle of W's first rr rows (rows past min(m, n) are zero)
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    b = tl.program_id(2).to(tl.int64)
    r, c = rows[:, None], cols[None, :]
    w = tl.load(w_ptr + b * m * n + r * n + c, mask=(r < m) & (c < n), other=0.0)
    tl.store(r_ptr + b * rr * n + r * n + c, tl.where(r <= c, w, 0.0), mask=(r < rr) & (c < n))


def qr(A: torch.Tensor, mode: str = "reduced"):
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    rr = m if mode == "complete" else k
    qc = m if mode == "complete" else k
    R = torch.empty((*batch, rr, n), dtype=A.dtype, device=A.device)
    Q = torch.empty((0,) if mode == "r" else (*batch, m, qc), dtype=A.dtype, device=A.device)
    if nb == 0 or m == 0 or n == 0:
        return Q, R
    w = torch.empty((nb, m, n), dtype=A.dtype, device=A.device)
    tau = torch.empty((nb, k), dtype=A.dtype, device=A.device)
    _householder_kernel[(nb,)](a, w, tau, m, n, a.stride(0), a.stride(1), a.stride(2), BR=64, BC=64)
    if mode != "r":
        _form_q_kernel[(triton.cdiv(qc, 64), nb)](w, tau, Q, m, n, qc, BR=64, BC=64)
    _extract_r_kernel[(triton.cdiv(rr, 32), triton.cdiv(n, 32), nb)](w, R, m, n, rr, BR=32, BC=32)
    return Q, R
