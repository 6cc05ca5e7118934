# C1 = alpha·A@B + beta·C (one GEMM, epilogue fused), then out = alpha·C1@C1ᵀ + beta·C1: C1@C1ᵀ is symmetric,
# so only the tiles on and below the diagonal are computed and each off-diagonal tile is stored twice (as itself
# and transposed), which saves a quarter of the total work. TF32 tensor cores, as the contract allows.
import torch
import triton
import triton.language as tl


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
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :].to(tl.int64) * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
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
    b_ptrs = x_ptr + rk[:, None] * sxk + rj[None, :].to(tl.int64) * sxm  # (x rows rj)ᵀ
    acc = tl.zeros((BT, BT), dtype=tl.float32)
    for k0 in range(0, N, BK):
        a = tl.load(a_ptrs, mask=(ri[:, None] < N) & (k0 + rk[None, :] < N), other=0.0)
        b = tl.load(b_ptrs, mask=(k0 + rk[:, None] < N) & (rj[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
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
        return 128, 128, 32, 8, 3
    if M * N >= 1 << 18:
        return 64, 128, 32, 4, 4
    return 32, 64, 32, 4, 4


def matrix_multiply_symmetric(A, B, C, alpha, beta):
    n, m = A.shape
    dev = A.device
    c1 = torch.empty((n, n), dtype=torch.float32, device=dev)
    out = torch.empty((n, n), dtype=torch.float32, device=dev)
    if n == 0:
        return out
    BM, BN, BK, warps, stages = _tiles(n, n)
    _gemm_axpby_kernel[(triton.cdiv(n, BM) * triton.cdiv(n, BN),)](
        A, B, C, c1, n, n, m, float(alpha), float(beta), A.stride(0), A.stride(1), B.stride(0), B.stride(1),
        C.stride(0), C.stride(1), n, 1, BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps, num_stages=stages)
    BT = 128 if n >= 2048 else (64 if n >= 512 else 32)
    t = triton.cdiv(n, BT)
    _syrk_axpby_kernel[(t * (t + 1) // 2,)](c1, out, n, float(alpha), float(beta), n, 1, BT=BT, BK=32,
                                           num_warps=8 if BT == 128 else 4, num_stages=3)
    return out
