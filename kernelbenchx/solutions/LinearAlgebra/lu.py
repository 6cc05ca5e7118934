import torch
import triton
import triton.language as tl

# Loops over runtime bounds are `while` loops: `for ... in range(runtime)` breaks the Triton interpreter
# under numpy >= 2.4.


@triton.jit
def _lu_factor_kernel(a_ptr, w_ptr, perm_ptr, m, n, s_ab, s_ar, s_ac,
                      PIVOT: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # One program per matrix: right-looking elimination in a workspace W (m×n, contiguous) that ends up holding
    # the multipliers below the diagonal and U on and above it; perm[i] = source row of row i.
    b = tl.program_id(0).to(tl.int64)
    a_ptr += b * s_ab
    w_ptr += b * m * n
    perm_ptr += b * m
    ar = tl.arange(0, BR)
    ac = tl.arange(0, BC)
    r0 = 0
    while r0 < m:  # copy A into W, identity permutation
        rows = r0 + ar
        rmask = rows < m
        tl.store(perm_ptr + rows, rows, mask=rmask)
        c0 = 0
        while c0 < n:
            cols = c0 + ac
            mask = rmask[:, None] & (cols < n)[None, :]
            tile = tl.load(a_ptr + rows[:, None] * s_ar + cols[None, :] * s_ac, mask=mask)
            tl.store(w_ptr + rows[:, None] * n + cols[None, :], tile, mask=mask)
            c0 += BC
        r0 += BR
    tl.debug_barrier()
    kmax = tl.minimum(m, n)
    k = 0
    while k < kmax:
        if PIVOT:
            # the first row with the largest |W[i, k]|, i ≥ k
            best_v = tl.abs(tl.load(w_ptr + k * n + k))
            best_i = k
            r0 = k
            while r0 < m:
                rows = r0 + ar
                v = tl.abs(tl.load(w_ptr + rows * n + k, mask=rows < m, other=0.0))
                v = tl.where(rows < m, v, -1.0)
                bm = tl.max(v, axis=0)
                bi = r0 + tl.argmax(v, axis=0)
                better = bm > best_v
                best_i = tl.where(better, bi, best_i)
                best_v = tl.where(better, bm, best_v)
                r0 += BR
            p = best_i
            c0 = 0
            while c0 < n:  # swap rows k and p
                cols = c0 + ac
                cmask = cols < n
                row_k = tl.load(w_ptr + k * n + cols, mask=cmask)
                row_p = tl.load(w_ptr + p * n + cols, mask=cmask)
                tl.debug_barrier()
                tl.store(w_ptr + k * n + cols, row_p, mask=cmask)
                tl.store(w_ptr + p * n + cols, row_k, mask=cmask)
                c0 += BC
            perm_k = tl.load(perm_ptr + k)
            perm_p = tl.load(perm_ptr + p)
            tl.debug_barrier()
            tl.store(perm_ptr + k, perm_p)
            tl.store(perm_ptr + p, perm_k)
            tl.debug_barrier()
        pivot = tl.load(w_ptr + k * n + k)
        nonzero = pivot != 0.0
        den = tl.where(nonzero, pivot, 1.0)  # a zero pivot column is all zeros: leave it
        r0 = k + 1
        while r0 < m:
            rows = r0 + ar
            rmask = rows < m
            col = tl.load(w_ptr + rows * n + k, mask=rmask, other=0.0)
            tl.store(w_ptr + rows * n + k, col / den, mask=rmask)
            r0 += BR
        tl.debug_barrier()
        r0 = k + 1
        while r0 < m:  # trailing update W[k+1:, k+1:] -= l ⊗ u
            rows = r0 + ar
            rmask = rows < m
            lcol = tl.load(w_ptr + rows * n + k, mask=rmask, other=0.0)
            c0 = k + 1
            while c0 < n:
                cols = c0 + ac
                cmask = cols < n
                urow = tl.load(w_ptr + k * n + cols, mask=cmask, other=0.0)
                mask = rmask[:, None] & cmask[None, :]
                ptrs = w_ptr + rows[:, None] * n + cols[None, :]
                tile = tl.load(ptrs, mask=mask, other=0.0)
                tl.store(ptrs, tile - lcol[:, None] * urow[None, :], mask=mask)
                c0 += BC
            r0 += BR
        tl.debug_barrier()
        k += 1


@triton.jit
def _lu_unpack_kernel(w_ptr, perm_ptr, p_ptr, l_ptr, u_ptr, m, n, k,
                      PIVOT: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # grid (row tiles, col tiles, batch) over the largest output (m×max(m, n)); each output masks its own shape
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    b = tl.program_id(2).to(tl.int64)
    w_ptr += b * m * n
    r, c = rows[:, None], cols[None, :]
    w = tl.load(w_ptr + r * n + c, mask=(r < m) & (c < n), other=0.0)
    one = tl.full(w.shape, 1.0, w.dtype)
    zero = tl.zeros(w.shape, w.dtype)
    l_val = tl.where(r > c, w, tl.where(r == c, one, zero))
    tl.store(l_ptr + b * m * k + r * k + c, l_val, mask=(r < m) & (c < k))
    tl.store(u_ptr + b * k * n + r * n + c, tl.where(r <= c, w, zero), mask=(r < k) & (c < n))
    if PIVOT:
        src = tl.load(perm_ptr + b * m + cols, mask=cols < m, other=-1)
        tl.store(p_ptr + b * m * m + r * m + c, tl.where(src[None, :] == r, one, zero), mask=(r < m) & (c < m))


def lu(A: torch.Tensor, *, pivot: bool = True):
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    a = A.reshape(-1, m, n)
    nb = a.shape[0]
    w = torch.empty((nb, m, n), dtype=A.dtype, device=A.device)
    perm = torch.empty((nb, m), dtype=torch.int32, device=A.device)
    P = torch.empty((*batch, m, m) if pivot else (0,), dtype=A.dtype, device=A.device)
    L = torch.empty((*batch, m, k), dtype=A.dtype, device=A.device)
    U = torch.empty((*batch, k, n), dtype=A.dtype, device=A.device)
    if nb == 0 or m == 0 or n == 0:
        return P, L, U
    _lu_factor_kernel[(nb,)](a, w, perm, m, n, a.stride(0), a.stride(1), a.stride(2),
                             PIVOT=pivot, BR=64, BC=64)
    BR, BC = 32, 32
    grid = (triton.cdiv(m, BR), triton.cdiv(max(m, n), BC), nb)
    _lu_unpack_kernel[grid](w, perm, P, L, U, m, n, k, PIVOT=pivot, BR=BR, BC=BC)
    return P, L, U
