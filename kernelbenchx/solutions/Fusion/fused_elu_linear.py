import math

import torch
import triton
import triton.language as tl

# Tiled GEMM (fp16 or TF32 tensor-core products, fp32 accumulation) with bias and ELU in the epilogue. When the
# output has few tiles and K is long (the perf shapes: 1024×256 outputs, K up to 65536), K is split across
# programs into an fp32 workspace and a second kernel adds the slices, the bias and the ELU.


@triton.jit
def _gemm_tile(x_ptr, w_ptr, rm, rn, k_lo, k_hi, M, N, xs0, xs1, ws0, ws1,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    m_ok = rm < M
    n_ok = rn < N
    rm64 = rm.to(tl.int64)
    rn64 = rn.to(tl.int64)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < k_hi
        a = tl.load(x_ptr + rm64[:, None] * xs0 + rk[None, :] * xs1, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(w_ptr + rn64[None, :] * ws0 + rk[:, None] * ws1, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
    return acc


@triton.jit
def _bias_elu_store(acc, b_ptr, y_ptr, rm, rn, M, N, alpha, HAS_BIAS: tl.constexpr):
    m_ok = rm < M
    n_ok = rn < N
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    z = acc.to(y_ptr.dtype.element_ty).to(tl.float32)  # the linear result in the output dtype, as torch rounds it
    out = tl.where(z > 0, z, alpha * (tl.exp(tl.minimum(z, 0.0)) - 1.0))
    tl.store(y_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(y_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def _linear_elu(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, xs0, xs1, ws0, ws1, alpha,
                HAS_BIAS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _gemm_tile(x_ptr, w_ptr, rm, rn, 0, K, M, N, xs0, xs1, ws0, ws1, BM, BN, BK)
    _bias_elu_store(acc, b_ptr, y_ptr, rm, rn, M, N, alpha, HAS_BIAS)


@triton.jit
def _linear_split(x_ptr, w_ptr, ws_ptr, M, N, K, chunk, xs0, xs1, ws0, ws1,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    s = tl.program_id(2)
    k_lo = s * chunk
    k_hi = tl.minimum(k_lo + chunk, K)
    acc = _gemm_tile(x_ptr, w_ptr, rm, rn, k_lo, k_hi, M, N, xs0, xs1, ws0, ws1, BM, BN, BK)
    off = (s.to(tl.int64) * M + rm.to(tl.int64)[:, None]) * N + rn[None, :]
    tl.store(ws_ptr + off, acc, mask=(rm < M)[:, None] & (rn < N)[None, :])


@triton.jit
def _split_elu(ws_ptr, b_ptr, y_ptr, M, N, SPLIT, alpha, HAS_BIAS: tl.constexpr, BM: tl.constexpr,
               BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    ok = (rm < M)[:, None] & (rn < N)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for s in range(0, SPLIT):
        acc += tl.load(ws_ptr + (s * M + rm.to(tl.int64)[:, None]) * N + rn[None, :], mask=ok, other=0.0)
    _bias_elu_store(acc, b_ptr, y_ptr, rm, rn, M, N, alpha, HAS_BIAS)


def fused_elu_linear(input, weight, bias=None, alpha=1.0):
    N, K = weight.shape
    lead = list(input.shape[:-1])
    M = math.prod(lead)
    dev = input.device
    out = torch.empty(lead + [N], dtype=input.dtype, device=dev)
    if M * N == 0:
        return out
    x = input.reshape(M, K)
    BM = 128 if M >= 128 else 64
    BN = 128 if N >= 128 else max(16, triton.next_power_of_2(N))
    BK = 64 if input.dtype == torch.float16 else 32
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    split = max(1, min(264 // tiles, K // 1024))
    b = bias.contiguous() if bias is not None else weight
    if split == 1:
        _linear_elu[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, weight, b, out, M, N, K, x.stride(0), x.stride(1),
                                                             weight.stride(0), weight.stride(1), float(alpha),
                                                             HAS_BIAS=bias is not None, BM=BM, BN=BN, BK=BK,
                                                             num_warps=8)
        return out
    chunk = triton.cdiv(triton.cdiv(K, split), BK) * BK
    split = triton.cdiv(K, chunk)
    ws = torch.empty((split, M, N), dtype=torch.float32, device=dev)
    _linear_split[(triton.cdiv(M, BM), triton.cdiv(N, BN), split)](x, weight, ws, M, N, K, chunk, x.stride(0),
                                                                  x.stride(1), weight.stride(0), weight.stride(1),
                                                                  BM=BM, BN=BN, BK=BK, num_warps=8)
    _split_elu[(triton.cdiv(M, 64), triton.cdiv(N, 64))](ws, b, out, M, N, split, float(alpha),
                                                         HAS_BIAS=bias is not None, BM=64, BN=64, num_warps=4)
    return out
