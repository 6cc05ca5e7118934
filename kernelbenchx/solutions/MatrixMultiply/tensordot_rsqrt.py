# tensordot as one (M, K) @ (K, N) GEMM over views of a and b (free dimensions first / contracted dimensions
# first), with rsqrt fused into the epilogue. fp32 products (input_precision="ieee"), as the contract requires:
# the fp32 CUDA-core GEMM runs at about cuBLAS SGEMM's speed or below, so the gain over eager is the fused rsqrt
# pass, not the product.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_rsqrt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
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
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    out = 1.0 / tl.sqrt_rn(acc)  # inf at 0, NaN below
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _dims(dims, a_dim, b_dim):
    if isinstance(dims, int):
        return list(range(a_dim - dims, a_dim)), list(range(dims))
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    return [d % a_dim for d in da], [d % b_dim for d in db]


def _as_matrix(t, rows, cols):
    """t with dimensions `rows` then `cols`, flattened to 2-D (a view where the strides allow, else a copy)."""
    p = t.permute(*rows, *cols)
    r = math.prod(t.shape[d] for d in rows)
    c = math.prod(t.shape[d] for d in cols)
    return p.reshape(r, c)


def tensordot_rsqrt(a, b, dims):
    da, db = _dims(dims, a.dim(), b.dim())
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    am = _as_matrix(a, fa, da)
    bm = _as_matrix(b, db, fb)
    M, K = am.shape
    N = bm.shape[1]
    out = torch.empty((M, N), dtype=torch.float32, device=a.device)
    if out.numel():
        BM, BN, BK, warps = (64, 64, 32, 4) if M * N >= 1 << 18 else (32, 32, 32, 4)
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        _gemm_rsqrt_kernel[grid](am, bm, out, M, N, K, am.stride(0), am.stride(1), bm.stride(0), bm.stride(1),
                                 BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=warps, num_stages=3)
    return out.reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])
