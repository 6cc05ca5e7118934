import torch
import triton
import triton.language as tl

# One kernel: a tile of input @ weightᵀ, + bias, sigmoid and dropout in the epilogue, with one Philox counter per
# output element (its row-major index), so the mask does not depend on the tiling.
# The product runs as 3xTF32 (input_precision="tf32x3": each operand split into a TF32 high part and a TF32
# low part, three tensor-core products), close to fp32. Plain TF32 (tl.dot's default on NVIDIA, which truncates
# the operands) puts errors of ~0.05 into logits of K = 4096 terms, and the checker, which must tell kept from
# dropped values against a float64 recomputation, then finds values that are neither (the interpreter's
# tl.dot is exact fp32, so only the GPU showed it).


@triton.jit
def _linear_sigmoid_dropout_kernel(x_ptr, w_ptr, b_ptr, out_ptr, R, N, K, p, scale, seed,
                                   sxr, sxk, swn, swk, sb,
                                   HAS_BIAS: tl.constexpr, RANDOM: tl.constexpr,
                                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rm64 = rm.to(tl.int64)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k0 = 0
    while k0 < K:  # while, not range(): the interpreter (numpy >= 2.4) cannot range() to a runtime bound
        ks = k0 + rk
        a = tl.load(x_ptr + rm64[:, None] * sxr + ks[None, :] * sxk, mask=(rm[:, None] < R) & (ks[None, :] < K),
                    other=0.0)
        b = tl.load(w_ptr + rn[None, :] * swn + ks[:, None] * swk, mask=(ks[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b, input_precision="tf32x3")
        k0 += BK
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn * sb, mask=rn < N, other=0.0)[None, :]
    y = tl.sigmoid(acc)
    idx = rm64[:, None] * N + rn[None, :]
    if RANDOM:
        y = tl.where(tl.rand(seed, idx) >= p, y * scale, 0.0)
    else:
        y = y * scale
    tl.store(out_ptr + idx, y, mask=(rm[:, None] < R) & (rn[None, :] < N))


def fused_dropout_sigmoid_linear(input, weight, bias=None, p=0.5, training=True, inplace=False, seed=0):
    N, K = weight.shape
    lead = input.shape[:-1]
    x = input.reshape(-1, K)
    R = x.shape[0]
    out = torch.empty((*lead, N), dtype=torch.float32, device=input.device)
    if out.numel() == 0:
        return out
    random = bool(training) and 0.0 < p < 1.0
    scale = 1.0 / (1.0 - p) if random else (0.0 if training and p >= 1.0 else 1.0)
    BM, BN, BK = 64, 64, 32
    if triton.cdiv(R, BM) * triton.cdiv(N, BN) < 128:  # small outputs with long rows: more, thinner tiles
        BM = 32
    has_bias = bias is not None
    b = bias if has_bias else out
    grid = (triton.cdiv(R, BM), triton.cdiv(N, BN))
    _linear_sigmoid_dropout_kernel[grid](x, weight, b, out, R, N, K, p, scale, seed,
                                         x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
                                         b.stride(0) if has_bias else 0,
                                         HAS_BIAS=has_bias, RANDOM=random, BM=BM, BN=BN, BK=BK, num_stages=3)
    return out
