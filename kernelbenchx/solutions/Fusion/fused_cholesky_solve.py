import torch
import triton
import triton.language as tl

# A = L·Lᵀ by a blocked right-looking Cholesky (LAPACK potrf's scheme), then x = L⁻ᵀ·L⁻¹·b by blocked triangular
# solves. Each diagonal block is factored in registers by one program, which also inverts it; every other step
# is then a product (tl.dot, strict fp32): the panel L21 = A21·L11⁻ᵀ, the trailing update A22 −= L21·L21ᵀ, and in
# the solves X_i = L_ii⁻¹·Y_i followed by Y_t −= L_ti·X_i. cuSOLVER's fused factorization is faster at these
# sizes (a few launches per 32-column panel, each diagonal block on one SM): this solution is correct, not fast.

NB = 64


@triton.jit
def _copy_in(src_ptr, dst_ptr, rows, cols, s_r, s_c, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    v = tl.load(src_ptr + r[:, None].to(tl.int64) * s_r + c[None, :].to(tl.int64) * s_c, mask=mask)
    tl.store(dst_ptr + r[:, None].to(tl.int64) * cols + c[None, :], v, mask=mask)


@triton.jit
def _diag_factor(w_ptr, inv_ptr, n, j0, NB: tl.constexpr):
    """Factor the diagonal block A11 = L11·L11ᵀ in registers (stored in place, lower triangle) and store
    L11⁻¹ in inv[j0 // NB]. Rows past n act as the identity."""
    r = tl.arange(0, NB)
    rows = j0 + r
    valid = rows < n
    a = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], mask=valid[:, None] & valid[None, :],
                other=0.0)
    a = tl.where((~valid)[:, None] & (r[:, None] == r[None, :]), 1.0, a)
    for q in tl.static_range(NB):
        colq = tl.sum(tl.where(r[None, :] == q, a, 0.0), axis=1)
        dq = tl.sum(tl.where(r == q, colq, 0.0), axis=0)
        lq = tl.where(r >= q, colq / tl.sqrt(dq), 0.0)
        upd = tl.where((r[:, None] > q) & (r[None, :] > q), lq[:, None] * lq[None, :], 0.0)
        a = tl.where(r[None, :] == q, lq[:, None], a - upd)
    lower = r[:, None] >= r[None, :]
    tl.store(w_ptr + rows[:, None].to(tl.int64) * n + rows[None, :], a, mask=valid[:, None] & valid[None, :] & lower)
    # L11⁻¹ by forward substitution on the identity, one row per step.
    a = tl.where(lower, a, 0.0)
    x = tl.zeros((NB, NB), dtype=tl.float32)
    for q in tl.static_range(NB):
        lrow = tl.sum(tl.where(r[:, None] == q, a, 0.0), axis=0)  # L[q, :]
        d = tl.sum(tl.where(r == q, lrow, 0.0), axis=0)
        s = tl.sum(tl.where(r[:, None] < q, lrow[:, None] * x, 0.0), axis=0)
        xq = (tl.where(r == q, 1.0, 0.0) - s) / d
        x = tl.where(r[:, None] == q, xq[None, :], x)
    tl.store(inv_ptr + (j0 // NB) * NB * NB + r[:, None] * NB + r[None, :], x)


@triton.jit
def _panel(w_ptr, inv_ptr, n, j0, NB: tl.constexpr):
    """L21 = A21·L11⁻ᵀ for the block of NB rows below the diagonal block that this program owns."""
    r = tl.arange(0, NB)
    cols = j0 + r
    linv = tl.load(inv_ptr + (j0 // NB) * NB * NB + r[:, None] * NB + r[None, :])
    rt = j0 + (tl.program_id(0) + 1) * NB + r
    mask = (rt < n)[:, None] & (cols < n)[None, :]
    ptrs = w_ptr + rt[:, None].to(tl.int64) * n + cols[None, :]
    a = tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, tl.dot(a, tl.trans(linv), input_precision="ieee"), mask=mask)


@triton.jit
def _trailing(w_ptr, n, j0, r0, NB: tl.constexpr, BM: tl.constexpr):
    """Lower triangle of the trailing matrix: A22 −= L21·L21ᵀ (tiles above the diagonal skipped)."""
    ti = tl.program_id(0)
    tj = tl.program_id(1)
    if tj <= ti:
        rows = r0 + ti * BM + tl.arange(0, BM)
        cols = r0 + tj * BM + tl.arange(0, BM)
        kk = j0 + tl.arange(0, NB)
        li = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + kk[None, :], mask=(rows < n)[:, None], other=0.0)
        lj = tl.load(w_ptr + cols[None, :].to(tl.int64) * n + kk[:, None], mask=(cols < n)[None, :], other=0.0)
        ptrs = w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :]
        mask = (rows < n)[:, None] & (cols < n)[None, :]
        a = tl.load(ptrs, mask=mask, other=0.0)
        tl.store(ptrs, a - tl.dot(li, lj, input_precision="ieee"), mask=mask)


@triton.jit
def _solve_step(w_ptr, inv_ptr, y_ptr, x_ptr, n, k, i0, FORWARD: tl.constexpr, NB: tl.constexpr,
                BC: tl.constexpr):
    """Block i of L·X = Y (FORWARD) or Lᵀ·X = Y: every program computes X_i = L_ii⁻¹·Y_i (or L_ii⁻ᵀ·Y_i) for its
    column tile; the first stores it, the others update their own later block, Y_t −= L_ti·X_i (L_itᵀ·X_i)."""
    r = tl.arange(0, NB)
    ri = i0 + r
    rmask = ri < n
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    cmask = cols < k
    ymask = rmask[:, None] & cmask[None, :]
    yi = tl.load(y_ptr + ri[:, None].to(tl.int64) * k + cols[None, :], mask=ymask, other=0.0)
    blk = i0 // NB
    if FORWARD:
        linv = tl.load(inv_ptr + blk * NB * NB + r[:, None] * NB + r[None, :])
    else:
        linv = tl.load(inv_ptr + blk * NB * NB + r[None, :] * NB + r[:, None])  # (L_ii⁻¹)ᵀ
    xi = tl.dot(linv, yi, input_precision="ieee")
    t = tl.program_id(0)
    if t == 0:
        tl.store(x_ptr + ri[:, None].to(tl.int64) * k + cols[None, :], xi, mask=ymask)
    else:
        if FORWARD:
            rt = i0 + t * NB + r
        else:
            rt = i0 - t * NB + r
        tmask = (rt >= 0) & (rt < n)
        if FORWARD:
            lti = tl.load(w_ptr + rt[:, None].to(tl.int64) * n + ri[None, :], mask=tmask[:, None] & rmask[None, :],
                          other=0.0)
        else:
            lti = tl.load(w_ptr + ri[None, :].to(tl.int64) * n + rt[:, None], mask=tmask[:, None] & rmask[None, :],
                          other=0.0)
        yptrs = y_ptr + rt[:, None].to(tl.int64) * k + cols[None, :]
        m = tmask[:, None] & cmask[None, :]
        yt = tl.load(yptrs, mask=m, other=0.0)
        tl.store(yptrs, yt - tl.dot(lti, xi, input_precision="ieee"), mask=m)


def fused_cholesky_solve(A, b):
    n = A.shape[-1]
    k = b.shape[-1]
    dev = b.device
    out = torch.empty((n, k), dtype=b.dtype, device=dev)
    if n == 0 or k == 0:
        return out
    nblocks = triton.cdiv(n, NB)
    w = torch.empty((n, n), dtype=torch.float32, device=dev)
    inv = torch.empty((nblocks, NB, NB), dtype=torch.float32, device=dev)
    _copy_in[(triton.cdiv(n, 32), triton.cdiv(n, 32))](A, w, n, n, A.stride(0), A.stride(1), BR=32, BC=32)
    for j0 in range(0, n, NB):
        _diag_factor[(1,)](w, inv, n, j0, NB=NB)
        r0 = j0 + NB
        if r0 < n:
            _panel[(triton.cdiv(n - r0, NB),)](w, inv, n, j0, NB=NB)
            tiles = triton.cdiv(n - r0, 64)
            _trailing[(tiles, tiles)](w, n, j0, r0, NB=NB, BM=64)
    y = torch.empty((n, k), dtype=torch.float32, device=dev)
    z = torch.empty((n, k), dtype=torch.float32, device=dev)
    _copy_in[(triton.cdiv(n, 32), triton.cdiv(k, 32))](b, y, n, k, b.stride(0), b.stride(1), BR=32, BC=32)
    BC = max(16, min(64, triton.next_power_of_2(k)))
    for i in range(nblocks):  # forward: L·z = b
        _solve_step[(nblocks - i, triton.cdiv(k, BC))](w, inv, y, z, n, k, i * NB, FORWARD=True, NB=NB, BC=BC)
    for i in range(nblocks - 1, -1, -1):  # backward: Lᵀ·x = z
        _solve_step[(i + 1, triton.cdiv(k, BC))](w, inv, z, out, n, k, i * NB, FORWARD=False, NB=NB, BC=BC)
    return out
