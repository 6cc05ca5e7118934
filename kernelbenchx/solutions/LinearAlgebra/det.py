import torch
import triton
import triton.language as tl

# det from a blocked right-looking LU with partial pivoting (LAPACK getrf's scheme): per panel of 32 columns,
# one program per matrix factors the panel, a column-parallel kernel applies its row swaps and solves
# U12 = L11⁻¹·A12, and a tiled tl.dot kernel updates the trailing matrix; then det = (−1)^swaps·∏ U_ii.
# Slower than cuSOLVER at the largest sizes: the panel factorization runs on one SM per matrix and each panel
# costs three launches, where cuSOLVER factors panels with many warps.

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


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _lu_det_kernel(w_ptr, ipiv_ptr, out_ptr, n, N, PIVOT: tl.constexpr, BLOCK: tl.constexpr):
    # det = (−1)^(number of row interchanges) · ∏ U_ii, one program per matrix
    n = tl.zeros((), tl.int64) + n
    N = tl.zeros((), tl.int64) + N
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * n * N
    ipiv_ptr += b * n
    prod = tl.full((), 1.0, w_ptr.dtype.element_ty)
    swaps = tl.zeros((), tl.int32)
    for i0 in range(0, n, BLOCK):
        i = i0 + tl.arange(0, BLOCK).to(tl.int64)
        mask = i < n
        d = tl.load(w_ptr + i.to(tl.int64) * (N + 1), mask=mask, other=1.0)
        prod = prod * tl.reduce(d, 0, _mul)
        if PIVOT:
            p = tl.load(ipiv_ptr + i, mask=mask, other=0)
            swaps += tl.sum((mask & (p != i)).to(tl.int32), axis=0)
    sign = tl.where(swaps % 2 == 1, -1.0, 1.0)
    tl.store(out_ptr + b, prod * sign)


def det(A):
    n = A.shape[-1]
    batch = A.shape[:-2]
    a = A.reshape(-1, n, n)
    nb = a.shape[0]
    out = torch.empty(batch, dtype=A.dtype, device=A.device)
    if nb == 0:
        return out
    w = torch.empty((nb, n, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](a, w, n, n, n, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    ipiv = _lu_factor(w, n, n, n, True)
    _lu_det_kernel[(nb,)](w, ipiv, out, n, n, PIVOT=True, BLOCK=256)
    return out
