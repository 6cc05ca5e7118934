import torch
import triton
import triton.language as tl

# Blocked right-looking Cholesky (LAPACK potrf's scheme): per panel of NB columns one program per matrix
# factors the diagonal block in registers, one program per block of NB rows solves the panel L21 = A21·L11⁻ᵀ,
# and a tiled tl.dot kernel updates the lower triangle of the trailing matrix. Slower than cuSOLVER on small
# matrices (three launches per panel, the diagonal block on one SM).


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


# ---- blocked right-looking Cholesky (lower), panel width NB ----------------------------------------------------


@triton.jit
def _chol_diag_kernel(w_ptr, n, j0, NB: tl.constexpr):
    # one program per matrix: the diagonal block A11 = L11·L11ᵀ, factored in registers and stored in place
    n = tl.zeros((), tl.int64) + n
    j0 = tl.zeros((), tl.int64) + j0
    b = tl.program_id(0).to(tl.int64)
    w_ptr += b * n * n
    r = tl.arange(0, NB).to(tl.int64)
    rows = j0 + r
    valid = rows < n
    a11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], mask=valid[:, None] & valid[None, :],
                  other=0.0)
    a11 = tl.where((~valid)[:, None] & (r[:, None] == r[None, :]), 1.0, a11)  # rows past n: identity
    for q in range(NB):  # a loop, not unrolled: 64 unrolled steps took ptxas ~100 s (run 67)
        colq = tl.sum(tl.where(r[None, :] == q, a11, 0.0), axis=1)
        dq = tl.sum(tl.where(r == q, colq, 0.0), axis=0)
        lq = tl.where(r >= q, colq / tl.sqrt(dq), 0.0)
        upd = tl.where((r[:, None] > q) & (r[None, :] > q), lq[:, None] * lq[None, :], 0.0)
        a11 = tl.where(r[None, :] == q, lq[:, None], a11 - upd)
    tl.store(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], a11,
             mask=valid[:, None] & valid[None, :] & (r[:, None] >= r[None, :]))


@triton.jit
def _chol_panel_kernel(w_ptr, n, j0, NB: tl.constexpr):
    # one program per block of NB rows below the diagonal block: L21 = A21·L11⁻ᵀ
    n = tl.zeros((), tl.int64) + n
    j0 = tl.zeros((), tl.int64) + j0
    b = tl.program_id(1).to(tl.int64)
    w_ptr += b * n * n
    r = tl.arange(0, NB).to(tl.int64)
    rows = j0 + r
    valid = rows < n
    l11 = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :],
                  mask=valid[:, None] & valid[None, :] & (r[:, None] >= r[None, :]), other=0.0)
    rt = j0 + (tl.program_id(0) + 1) * NB + r
    tmask = (rt < n)[:, None] & valid[None, :]
    ptrs = w_ptr + rt[:, None].to(tl.int64) * n + rows[None, :]
    x = tl.load(ptrs, mask=tmask, other=0.0)
    for q in range(NB):  # a loop, not unrolled: 64 unrolled steps took ptxas ~100 s (run 67)
        lcol = tl.sum(tl.where(r[None, :] == q, l11, 0.0), axis=1)  # L11[:, q]
        dq = tl.sum(tl.where(r == q, lcol, 0.0), axis=0)
        xq = tl.sum(tl.where(r[None, :] == q, x, 0.0), axis=1) / tl.where(j0 + q < n, dq, 1.0)
        upd = tl.where(r[None, :] > q, xq[:, None] * lcol[None, :], 0.0)
        x = tl.where(r[None, :] == q, xq[:, None], x - upd)
    tl.store(ptrs, x, mask=tmask)


@triton.jit
def _chol_update_kernel(w_ptr, n, j0, r0, NB: tl.constexpr, BM: tl.constexpr, PREC: tl.constexpr):
    # lower triangle of the trailing matrix: W[r0:, r0:] -= L21·L21ᵀ (tiles above the diagonal are skipped)
    n = tl.zeros((), tl.int64) + n
    j0 = tl.zeros((), tl.int64) + j0
    r0 = tl.zeros((), tl.int64) + r0
    b = tl.program_id(2).to(tl.int64)
    ti = tl.program_id(0)
    tj = tl.program_id(1)
    if tj <= ti:
        w_ptr += b * n * n
        rows = r0 + ti * BM + tl.arange(0, BM).to(tl.int64)
        cols = r0 + tj * BM + tl.arange(0, BM).to(tl.int64)
        kk = j0 + tl.arange(0, NB).to(tl.int64)
        li = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + kk[None, :], mask=(rows < n)[:, None], other=0.0)
        lj = tl.load(w_ptr + cols[None, :].to(tl.int64) * n + kk[:, None], mask=(cols < n)[None, :], other=0.0)
        ptrs = w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
        mask = (rows < n)[:, None] & (cols < n)[None, :]
        a = tl.load(ptrs, mask=mask, other=0.0)
        a = a - tl.dot(li, lj, input_precision=PREC).to(a.dtype)
        tl.store(ptrs, a, mask=mask)


def _chol_factor(w, n):
    """Lower Cholesky factor of w (nb, n, n) in place (the upper triangle is left as it was)."""
    nb = w.shape[0]
    NB = 64 if n > 256 else 32
    for j0 in range(0, n, NB):
        _chol_diag_kernel[(nb,)](w, n, j0, NB=NB)
        r0 = j0 + NB
        if r0 < n:
            _chol_panel_kernel[(triton.cdiv(n - r0, NB), nb)](w, n, j0, NB=NB)
            BM = 64
            tiles = triton.cdiv(n - r0, BM)
            _chol_update_kernel[(tiles, tiles, nb)](w, n, j0, r0, NB=NB, BM=BM, PREC="ieee")


@triton.jit
def _chol_unpack_kernel(w_ptr, out_ptr, n, so_b, so_r, so_c, BR: tl.constexpr):
    # out = the lower triangle of W with zeros above (written through out's strides, transposed for upper=True)
    n = tl.zeros((), tl.int64) + n
    b = tl.program_id(2).to(tl.int64)
    r = tl.program_id(0) * BR + tl.arange(0, BR).to(tl.int64)
    c = tl.program_id(1) * BR + tl.arange(0, BR).to(tl.int64)
    mask = (r < n)[:, None] & (c < n)[None, :]
    v = tl.load(w_ptr + b * n * n + r[:, None].to(tl.int64) * n + c[None, :], mask=mask, other=0.0)
    v = tl.where(r[:, None] >= c[None, :], v, 0.0)
    tl.store(out_ptr + b * so_b + r[:, None].to(tl.int64) * so_r + c[None, :].to(tl.int64) * so_c, v, mask=mask)


def cholesky(A, *, upper=False):
    n = A.shape[-1]
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    a = A.reshape(-1, n, n)
    o = out.view(-1, n, n)
    nb = a.shape[0]
    w = torch.empty((nb, n, n), dtype=A.dtype, device=A.device)
    _copy_in_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](a, w, n, n, n, 0, a.stride(0), a.stride(1),
                                                                  a.stride(2), BR=32, BC=32)
    _chol_factor(w, n)
    s_r, s_c = (o.stride(2), o.stride(1)) if upper else (o.stride(1), o.stride(2))
    _chol_unpack_kernel[(triton.cdiv(n, 32), triton.cdiv(n, 32), nb)](w, o, n, o.stride(0), s_r, s_c, BR=32)
    return out
