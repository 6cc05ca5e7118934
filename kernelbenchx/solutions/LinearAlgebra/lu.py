import torch
import triton
import triton.language as tl

# Blocked right-looking LU with partial pivoting (LAPACK getrf's scheme): per panel of 32 columns, one program
# per matrix factors the panel (pivot search, swaps, rank-1 updates), a column-parallel kernel applies the
# panel's swaps to the other columns and solves U12 = L11⁻¹·A12, and a tiled tl.dot kernel updates the trailing
# matrix. Slower than cuSOLVER at the larger sizes: the panel factorization runs on one SM per matrix and
# every panel costs three launches, where cuSOLVER factors panels with many warps and overlaps them.

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
def _perm_kernel(ipiv_ptr, src_ptr, m, K):
    # src[i] = the row of A that ends in row i after the swaps
    m = tl.zeros((), tl.int64) + m
    K = tl.zeros((), tl.int64) + K
    b = tl.program_id(0).to(tl.int64)
    ipiv_ptr += b * K
    src_ptr += b * m
    for i0 in range(0, m, 256):
        r = i0 + tl.arange(0, 256).to(tl.int64)
        tl.store(src_ptr + r, r, mask=r < m)
    tl.debug_barrier()
    for j in range(0, K):
        p = tl.load(ipiv_ptr + j)
        a = tl.load(src_ptr + j)
        c = tl.load(src_ptr + p)
        tl.debug_barrier()
        tl.store(src_ptr + p, a)
        tl.store(src_ptr + j, c)
        tl.debug_barrier()


@triton.jit
def _lu_unpack_kernel(w_ptr, src_ptr, p_ptr, l_ptr, u_ptr, m, n, k, PIVOT: tl.constexpr, BR: tl.constexpr,
                      BC: tl.constexpr):
    # grid (row tiles, col tiles, batch) over m×max(m, n); each output masks its own shape
    m = tl.zeros((), tl.int64) + m
    n = tl.zeros((), tl.int64) + n
    k = tl.zeros((), tl.int64) + k
    rows = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    cols = tl.program_id(1) * BC + tl.arange(0, BC).to(tl.int64)
    b = tl.program_id(2).to(tl.int64)
    w_ptr += b * m * n
    r, c = rows[:, None], cols[None, :]
    w = tl.load(w_ptr + r.to(tl.int64) * n + c, mask=(r < m) & (c < n), other=0.0)
    one = tl.full(w.shape, 1.0, w.dtype)
    zero = tl.zeros(w.shape, w.dtype)
    tl.store(l_ptr + b * m * k + r.to(tl.int64) * k + c, tl.where(r > c, w, tl.where(r == c, one, zero)),
             mask=(r < m) & (c < k))
    tl.store(u_ptr + b * k * n + r.to(tl.int64) * n + c, tl.where(r <= c, w, zero), mask=(r < k) & (c < n))
    if PIVOT:
        src = tl.load(src_ptr + b * m + cols, mask=cols < m, other=-1)
        tl.store(p_ptr + b * m * m + r.to(tl.int64) * m + c, tl.where(src[None, :] == r, one, zero),
                 mask=(r < m) & (c < m))


def lu(A, *, pivot=True):
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    P = torch.empty((*batch, m, m) if pivot else (0,), dtype=A.dtype, device=A.device)
    L = torch.empty((*batch, m, k), dtype=A.dtype, device=A.device)
    U = torch.empty((*batch, k, n), dtype=A.dtype, device=A.device)
    if nb == 0 or m == 0 or n == 0:
        return P, L, U
    w = torch.empty((nb, m, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(m, 32), triton.cdiv(n, 32), nb)](a, w, m, n, n, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    ipiv = _lu_factor(w, m, n, k, pivot)
    src = torch.empty((nb, m), dtype=torch.int32, device=A.device)
    if pivot:
        _perm_kernel[(nb,)](ipiv, src, m, k)
    BR, BC = 32, 32
    grid = (triton.cdiv(m, BR), triton.cdiv(max(m, n), BC), nb)
    _lu_unpack_kernel[grid](w, src, P, L, U, m, n, k, PIVOT=pivot, BR=BR, BC=BC)
    return P, L, U
