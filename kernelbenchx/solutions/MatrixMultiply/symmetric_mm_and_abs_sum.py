# Σ|alpha·A@Aᵀ + beta·C| without forming C': A@Aᵀ is symmetric, so each program computes one tile on or below
# the diagonal (half the products of a full GEMM) and adds |alpha·S + beta·C| over that tile and, off the diagonal,
# over its mirror with C's mirror tile. fp32 products (input_precision="ieee"), as the contract requires; the
# partial sums are added in a fixed order by a second kernel. The fp32 (non tensor-core) products run at CUDA-core
# speed, like cuBLAS's SGEMM; the halved work and the fused epilogue are what this kernel gains.
import torch
import triton
import triton.language as tl


@triton.jit
def _syrk_abs_sum_kernel(a_ptr, c_ptr, part_ptr, N, K, alpha, beta, sam, sak, scm, scn,
                         BT: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    # lower-triangle tile (ti, tj), tj <= ti: ti = floor((sqrt(8·pid + 1) − 1) / 2), corrected for sqrt rounding
    ti = ((tl.sqrt((8 * pid + 1).to(tl.float32)) - 1.0) * 0.5).to(tl.int32)
    ti = tl.where(ti * (ti + 1) // 2 > pid, ti - 1, ti)
    ti = tl.where((ti + 1) * (ti + 2) // 2 <= pid, ti + 1, ti)
    tj = pid - ti * (ti + 1) // 2
    ri = ti * BT + tl.arange(0, BT)
    rj = tj * BT + tl.arange(0, BT)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + ri[:, None].to(tl.int64) * sam + rk[None, :] * sak
    b_ptrs = a_ptr + rk[:, None] * sak + rj[None, :].to(tl.int64) * sam  # (A rows rj)ᵀ
    acc = tl.zeros((BT, BT), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(ri[:, None] < N) & (k0 + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(k0 + rk[:, None] < K) & (rj[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BK * sak
        b_ptrs += BK * sak
    mask = (ri[:, None] < N) & (rj[None, :] < N)
    c_ij = tl.load(c_ptr + ri[:, None].to(tl.int64) * scm + rj[None, :] * scn, mask=mask, other=0.0)
    total = tl.sum(tl.sum(tl.where(mask, tl.abs(alpha * acc + beta * c_ij), 0.0), axis=1), axis=0)
    if tj != ti:
        c_ji = tl.load(c_ptr + rj[None, :].to(tl.int64) * scm + ri[:, None] * scn, mask=mask, other=0.0)
        total += tl.sum(tl.sum(tl.where(mask, tl.abs(alpha * acc + beta * c_ji), 0.0), axis=1), axis=0)
    tl.store(part_ptr + pid, total)


@triton.jit
def _sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n, BLOCK):
        acc += tl.load(x_ptr + i + offs, mask=i + offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def symmetric_mm_and_abs_sum(A, C, alpha, beta):
    N, K = A.shape
    dev = A.device
    BT = 64 if N >= 512 else 32
    t = triton.cdiv(N, BT)
    tiles = t * (t + 1) // 2
    part = torch.empty(tiles, dtype=torch.float32, device=dev)
    _syrk_abs_sum_kernel[(tiles,)](A, C, part, N, K, float(alpha), float(beta), A.stride(0), A.stride(1),
                                   C.stride(0), C.stride(1), BT=BT, BK=32, num_warps=4, num_stages=3)
    out = torch.empty((), dtype=torch.float32, device=dev)
    _sum_kernel[(1,)](part, out, tiles, BLOCK=1024, num_warps=4)
    return out
