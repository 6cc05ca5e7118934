import math

import torch
import triton
import triton.language as tl

# A tiled TF32 GEMM (fp32 accumulation) with bias and ReLU in its epilogue, then a layer norm over each group of
# trailing elements (two passes over the group, in place). The perf shapes have 32 rows, so the GEMM streams the
# weight once and its column tile shrinks until there are enough programs to cover the GPU.


@triton.jit
def _linear_relu(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, xs0, xs1, ws0, ws1,
                 HAS_BIAS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < N
    rm64 = rm.to(tl.int64)
    rn64 = rn.to(tl.int64)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < K
        a = tl.load(x_ptr + rm64[:, None] * xs0 + rk[None, :] * xs1, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(w_ptr + rn64[None, :] * ws0 + rk[:, None] * ws1, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=n_ok, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm64[:, None] * N + rn64[None, :], acc, mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def _layernorm_groups(buf_ptr, G, eps, BLOCK: tl.constexpr):
    base = buf_ptr + tl.program_id(0).to(tl.int64) * G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        acc += tl.load(base + offs, mask=offs < G, other=0.0)
    mean = tl.sum(acc, axis=0) / G
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        d = tl.where(offs < G, tl.load(base + offs, mask=offs < G, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / G + eps)
    for k in range(0, G, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < G, other=0.0)
        tl.store(base + offs, (v - mean) * rstd, mask=offs < G)


def fused_layer_norm_relu_linear(input, weight, bias=None, normalized_shape=None, eps=1e-5,
                                 elementwise_affine=True):
    # elementwise_affine configures a fresh LayerNorm (weight 1, bias 0): no effect on the result.
    N, K = weight.shape
    lead = list(input.shape[:-1])
    M = math.prod(lead)
    out = torch.empty(lead + [N], dtype=torch.float32, device=input.device)
    if normalized_shape is None:
        normalized_shape = [N]
    G = math.prod([int(normalized_shape)] if isinstance(normalized_shape, int) else list(normalized_shape))
    if M * N == 0:
        return out
    x = input.reshape(M, K)
    BM = 32 if M <= 32 else 64
    BN = 64 if triton.cdiv(N, 64) * triton.cdiv(M, BM) >= 264 else (32 if N > 16 else 16)
    BK = 64
    b = bias.contiguous() if bias is not None else weight
    _linear_relu[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, weight, b, out, M, N, K, x.stride(0), x.stride(1),
                                                          weight.stride(0), weight.stride(1),
                                                          HAS_BIAS=bias is not None, BM=BM, BN=BN, BK=BK,
                                                          num_warps=4)
    _layernorm_groups[(out.numel() // G,)](out, G, float(eps), BLOCK=min(2048, max(16, triton.next_power_of_2(G))),
                                           num_warps=4)
    return out
