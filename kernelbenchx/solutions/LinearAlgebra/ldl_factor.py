import torch
import triton
import triton.language as tl

# Bunch-Kaufman LDLᵀ with LAPACK sytf2's pivoting rule (lower triangle, compact sytrf format), one program per
# matrix stepping through the columns: pivot search over the column (and the candidate's row/column), the
# symmetric interchange inside the trailing matrix, then a tiled rank-1 or rank-2 update of its lower
# triangle. Slower than cuSOLVER's sytrf at n = 1024: the factorization runs on one SM per matrix (cuSOLVER's
# blocked variant spreads the trailing updates over the GPU).

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


# ---- Bunch-Kaufman LDLᵀ (LAPACK sytf2, lower), one program per matrix ---------------------------------------


@triton.jit
def _swap_vec(a_ptr, b_ptr, mask):
    a = tl.load(a_ptr, mask=mask)
    b = tl.load(b_ptr, mask=mask)
    tl.debug_barrier()
    tl.store(a_ptr, b, mask=mask)
    tl.store(b_ptr, a, mask=mask)


@triton.jit
def _ldl_factor_kernel(w_ptr, piv_ptr, n, BR: tl.constexpr):
    # W (n×n, contiguous) holds A; its lower triangle ends as LAPACK's compact LD, piv the 1-based pivots
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * n * n
    piv_ptr += b * n
    ALPHA = 0.6403882032022076  # (1 + √17)/8
    ar = tl.arange(0, BR).to(tl.int64)
    k = tl.zeros((), tl.int64)
    while k < n:
        kk64 = k.to(tl.int64)
        akk = tl.load(w_ptr + kk64 * n + k)
        absakk = tl.abs(akk)
        colmax = absakk * 0.0
        imax = k
        for r0 in range(k + 1, n, BR):
            rows = r0 + ar
            v = tl.abs(tl.load(w_ptr + rows.to(tl.int64) * n + k, mask=rows < n, other=0.0))
            v = tl.where(rows < n, v, -1.0)
            bm = tl.max(v, axis=0)
            bi = r0 + tl.argmax(v, axis=0)
            better = bm > colmax
            imax = tl.where(better, bi, imax)
            colmax = tl.where(better, bm, colmax)
        kp = k
        kstep = tl.full((), 1, tl.int64)
        if tl.maximum(absakk, colmax) > 0.0:
            if absakk < ALPHA * colmax:
                # the largest off-diagonal entry in row/column imax of the trailing matrix
                im64 = imax.to(tl.int64)
                rowmax = colmax * 0.0
                for c0 in range(k, imax, BR):
                    cols = c0 + ar
                    v = tl.abs(tl.load(w_ptr + im64 * n + cols, mask=cols < imax, other=0.0))
                    rowmax = tl.maximum(rowmax, tl.max(v, axis=0))
                for r0 in range(imax + 1, n, BR):
                    rows = r0 + ar
                    v = tl.abs(tl.load(w_ptr + rows.to(tl.int64) * n + imax, mask=rows < n, other=0.0))
                    rowmax = tl.maximum(rowmax, tl.max(v, axis=0))
                if absakk >= ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif tl.abs(tl.load(w_ptr + im64 * n + imax)) >= ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = tl.full((), 2, tl.int64)
            kk = k + kstep - 1
            if kp != kk:
                # interchange rows and columns kk and kp of the trailing matrix (lower triangle)
                kk64b = kk.to(tl.int64)
                kp64 = kp.to(tl.int64)
                for r0 in range(kp + 1, n, BR):
                    rows = r0 + ar
                    _swap_vec(w_ptr + rows.to(tl.int64) * n + kk, w_ptr + rows.to(tl.int64) * n + kp, rows < n)
                for j0 in range(kk + 1, kp, BR):
                    j = j0 + ar
                    _swap_vec(w_ptr + j.to(tl.int64) * n + kk, w_ptr + kp64 * n + j, j < kp)
                _swap_vec(w_ptr + kk64b * n + kk + ar, w_ptr + kp64 * n + kp + ar, ar < 1)
                if kstep == 2:
                    _swap_vec(w_ptr + (kk64 + 1) * n + k + ar, w_ptr + kp64 * n + k + ar, ar < 1)
                tl.debug_barrier()
            if kstep == 1:
                d11 = 1.0 / tl.load(w_ptr + kk64 * n + k)
                for r0 in range(k + 1, n, BR):  # lower triangle of the trailing matrix: W -= d11·x·xᵀ
                    rows = r0 + ar
                    rm = rows < n
                    xr = tl.load(w_ptr + rows.to(tl.int64) * n + k, mask=rm, other=0.0)
                    for c0 in range(k + 1, r0 + BR, BR):
                        cols = c0 + ar
                        cm = (cols < n) & (cols <= r0 + BR - 1)
                        xc = tl.load(w_ptr + cols.to(tl.int64) * n + k, mask=cm, other=0.0)
                        mask = rm[:, None] & cm[None, :] & (cols[None, :] <= rows[:, None])
                        ptrs = w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
                        t = tl.load(ptrs, mask=mask, other=0.0)
                        tl.store(ptrs, t - d11 * xr[:, None] * xc[None, :], mask=mask)
                tl.debug_barrier()
                for r0 in range(k + 1, n, BR):
                    rows = r0 + ar
                    p = w_ptr + rows.to(tl.int64) * n + k
                    tl.store(p, tl.load(p, mask=rows < n, other=0.0) * d11, mask=rows < n)
                tl.store(piv_ptr + k, kp + 1)
            else:
                d21 = tl.load(w_ptr + (kk64 + 1) * n + k)
                d11 = tl.load(w_ptr + (kk64 + 1) * n + k + 1) / d21
                d22 = tl.load(w_ptr + kk64 * n + k) / d21
                t2 = 1.0 / (d11 * d22 - 1.0)
                d21 = t2 / d21
                for r0 in range(k + 2, n, BR):
                    rows = r0 + ar
                    rm = rows < n
                    ar_k = tl.load(w_ptr + rows.to(tl.int64) * n + k, mask=rm, other=0.0)
                    ar_k1 = tl.load(w_ptr + rows.to(tl.int64) * n + k + 1, mask=rm, other=0.0)
                    for c0 in range(k + 2, r0 + BR, BR):
                        cols = c0 + ar
                        cm = (cols < n) & (cols <= r0 + BR - 1)
                        ck = tl.load(w_ptr + cols.to(tl.int64) * n + k, mask=cm, other=0.0)
                        ck1 = tl.load(w_ptr + cols.to(tl.int64) * n + k + 1, mask=cm, other=0.0)
                        wk = d21 * (d11 * ck - ck1)
                        wk1 = d21 * (d22 * ck1 - ck)
                        mask = rm[:, None] & cm[None, :] & (cols[None, :] <= rows[:, None])
                        ptrs = w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
                        t = tl.load(ptrs, mask=mask, other=0.0)
                        tl.store(ptrs, t - (ar_k[:, None] * wk[None, :] + ar_k1[:, None] * wk1[None, :]), mask=mask)
                tl.debug_barrier()
                for r0 in range(k + 2, n, BR):
                    rows = r0 + ar
                    rm = rows < n
                    pk = w_ptr + rows.to(tl.int64) * n + k
                    ck = tl.load(pk, mask=rm, other=0.0)
                    ck1 = tl.load(pk + 1, mask=rm, other=0.0)
                    tl.store(pk, d21 * (d11 * ck - ck1), mask=rm)
                    tl.store(pk + 1, d21 * (d22 * ck1 - ck), mask=rm)
                tl.store(piv_ptr + k, -(kp + 1))
                tl.store(piv_ptr + k + 1, -(kp + 1))
        else:
            tl.store(piv_ptr + k, k + 1)
        tl.debug_barrier()
        k += kstep


@triton.jit
def _lower_kernel(w_ptr, ld_ptr, n, BR: tl.constexpr):
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BR + tl.arange(0, BR).to(tl.int64)
    mask = (r < n)[:, None] & (c < n)[None, :]
    offs = b * n * n + r[:, None].to(tl.int64) * n + c[None, :]
    v = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(ld_ptr + offs, tl.where(r[:, None] >= c[None, :], v, 0.0), mask=mask)


def ldl_factor(A, *, hermitian=False):
    n = A.shape[-1]
    LD = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    pivots = torch.empty(A.shape[:-1], dtype=torch.int32, device=A.device)
    if LD.numel() == 0:
        return LD, pivots
    a = A.reshape(-1, n, n)
    nb = a.shape[0]
    w = torch.empty((nb, n, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](a, w, n, n, n, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    _ldl_factor_kernel[(nb,)](w, pivots.view(nb, n), n, BR=64)
    _lower_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](w, LD.view(nb, n, n), n, BR=32)
    return LD, pivots
