import itertools

import torch
import triton
import triton.language as tl

# Loops over runtime bounds are `while` loops: `for ... in range(runtime)` breaks the Triton interpreter
# under numpy >= 2.4.


@triton.jit
def _solve_kernel(a_ptr, b_ptr, x_ptr, w_ptr, n, k, s_ar, s_ac, s_br, s_bc, s_xr, s_xc,
                  BR: tl.constexpr, BC: tl.constexpr):
    # One program per system: Gaussian elimination with partial pivoting on the augmented matrix [W | X]
    # (W a contiguous copy of A, X the output initialized with B), then back substitution with U.
    ar = tl.arange(0, BR)
    ac = tl.arange(0, BC)
    r0 = 0
    while r0 < n:  # W = A, X = B
        rows = r0 + ar
        rmask = rows < n
        c0 = 0
        while c0 < n:
            cols = c0 + ac
            mask = rmask[:, None] & (cols < n)[None, :]
            tile = tl.load(a_ptr + rows[:, None] * s_ar + cols[None, :] * s_ac, mask=mask)
            tl.store(w_ptr + rows[:, None] * n + cols[None, :], tile, mask=mask)
            c0 += BC
        c0 = 0
        while c0 < k:
            cols = c0 + ac
            mask = rmask[:, None] & (cols < k)[None, :]
            tile = tl.load(b_ptr + rows[:, None] * s_br + cols[None, :] * s_bc, mask=mask)
            tl.store(x_ptr + rows[:, None] * s_xr + cols[None, :] * s_xc, tile, mask=mask)
            c0 += BC
        r0 += BR
    tl.debug_barrier()
    j = 0
    while j < n:
        best_v = tl.abs(tl.load(w_ptr + j * n + j))
        best_i = j
        r0 = j
        while r0 < n:  # pivot: the first row with the largest |W[i, j]|, i ≥ j
            rows = r0 + ar
            v = tl.abs(tl.load(w_ptr + rows * n + j, mask=rows < n, other=0.0))
            v = tl.where(rows < n, v, -1.0)
            bm = tl.max(v, axis=0)
            bi = r0 + tl.argmax(v, axis=0)
            better = bm > best_v
            best_i = tl.where(better, bi, best_i)
            best_v = tl.where(better, bm, best_v)
            r0 += BR
        p = best_i
        c0 = 0
        while c0 < n:  # swap rows j and p of W and of X
            cols = c0 + ac
            cmask = cols < n
            row_j = tl.load(w_ptr + j * n + cols, mask=cmask)
            row_p = tl.load(w_ptr + p * n + cols, mask=cmask)
            tl.debug_barrier()
            tl.store(w_ptr + j * n + cols, row_p, mask=cmask)
            tl.store(w_ptr + p * n + cols, row_j, mask=cmask)
            c0 += BC
        c0 = 0
        while c0 < k:
            cols = c0 + ac
            cmask = cols < k
            row_j = tl.load(x_ptr + j * s_xr + cols * s_xc, mask=cmask)
            row_p = tl.load(x_ptr + p * s_xr + cols * s_xc, mask=cmask)
            tl.debug_barrier()
            tl.store(x_ptr + j * s_xr + cols * s_xc, row_p, mask=cmask)
            tl.store(x_ptr + p * s_xr + cols * s_xc, row_j, mask=cmask)
            c0 += BC
        tl.debug_barrier()
        pivot = tl.load(w_ptr + j * n + j)
        r0 = j + 1
        while r0 < n:  # eliminate below the pivot in W and X
            rows = r0 + ar
            rmask = rows < n
            lcol = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0) / pivot
            c0 = j + 1
            while c0 < n:
                cols = c0 + ac
                cmask = cols < n
                urow = tl.load(w_ptr + j * n + cols, mask=cmask, other=0.0)
                mask = rmask[:, None] & cmask[None, :]
                ptrs = w_ptr + rows[:, None] * n + cols[None, :]
                tile = tl.load(ptrs, mask=mask, other=0.0)
                tl.store(ptrs, tile - lcol[:, None] * urow[None, :], mask=mask)
                c0 += BC
            c0 = 0
            while c0 < k:
                cols = c0 + ac
                cmask = cols < k
                xrow = tl.load(x_ptr + j * s_xr + cols * s_xc, mask=cmask, other=0.0)
                mask = rmask[:, None] & cmask[None, :]
                ptrs = x_ptr + rows[:, None] * s_xr + cols[None, :] * s_xc
                tile = tl.load(ptrs, mask=mask, other=0.0)
                tl.store(ptrs, tile - lcol[:, None] * xrow[None, :], mask=mask)
                c0 += BC
            r0 += BR
        tl.debug_barrier()
        j += 1
    j = n - 1
    while j >= 0:  # back substitution: x_j = X[j] / U[j, j], then remove its contribution from the rows above
        diag = tl.load(w_ptr + j * n + j)
        c0 = 0
        while c0 < k:
            cols = c0 + ac
            cmask = cols < k
            xrow = tl.load(x_ptr + j * s_xr + cols * s_xc, mask=cmask, other=0.0) / diag
            tl.store(x_ptr + j * s_xr + cols * s_xc, xrow, mask=cmask)
            r0 = 0
            while r0 < j:
                rows = r0 + ar
                rmask = rows < j
                ucol = tl.load(w_ptr + rows * n + j, mask=rmask, other=0.0)
                mask = rmask[:, None] & cmask[None, :]
                ptrs = x_ptr + rows[:, None] * s_xr + cols[None, :] * s_xc
                tile = tl.load(ptrs, mask=mask, other=0.0)
                tl.store(ptrs, tile - ucol[:, None] * xrow[None, :], mask=mask)
                r0 += BR
            c0 += BC
        tl.debug_barrier()
        j -= 1


def solve(A: torch.Tensor, B: torch.Tensor, *, left: bool = True) -> torch.Tensor:
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    Bm = B.unsqueeze(-1) if vector else B
    if not left:  # X·A = B  ⇔  Aᵀ·Xᵀ = Bᵀ
        A, Bm = A.mT, Bm.mT
    k = Bm.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    a = A.expand(*batch, n, n)
    b = Bm.expand(*batch, n, k)
    out = torch.empty((*batch, n, k) if left else (*batch, k, n), dtype=B.dtype, device=B.device)
    x = out if left else out.mT
    w = torch.empty((n, n), dtype=A.dtype, device=A.device)
    if n and k:
        for idx in itertools.product(*(range(s) for s in batch)):
            ai, bi, xi = a[idx], b[idx], x[idx]
            _solve_kernel[(1,)](ai, bi, xi, w, n, k, ai.stride(0), ai.stride(1), bi.stride(0), bi.stride(1),
                                xi.stride(0), xi.stride(1), BR=64, BC=64)
    return out.squeeze(-1) if vector else out
