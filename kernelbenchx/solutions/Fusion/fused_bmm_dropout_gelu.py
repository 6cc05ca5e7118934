import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_dropout_gelu_kernel(a_ptr, b_ptr, c_ptr, M, N, K, p, scale, seed,
                             sab, sam, sak, sbb, sbk, sbn,
                             RANDOM: tl.constexpr, TANH: tl.constexpr,
                             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    batch = tl.program_id(2)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a_ptr + batch.to(tl.int64) * sab
    b_base = b_ptr + batch.to(tl.int64) * sbb
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k0 = 0
    while k0 < K:  # while, not range(): the interpreter (numpy >= 2.4) cannot range() to a runtime bound
        ks = k0 + rk
        a = tl.load(a_base + rm[:, None] * sam + ks[None, :] * sak, mask=(rm[:, None] < M) & (ks[None, :] < K),
                    other=0.0)
        b = tl.load(b_base + ks[:, None] * sbk + rn[None, :] * sbn, mask=(ks[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b)
        k0 += BK
    idx = batch.to(tl.int64) * M * N + rm[:, None] * N + rn[None, :]
    if RANDOM:
        x = tl.where(tl.rand(seed, idx) >= p, acc * scale, 0.0)
    else:
        x = acc * scale
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + idx, y.to(c_ptr.dtype.element_ty), mask=mask)


def fused_bmm_dropout_gelu(input1, input2, p=0.5, training=True, inplace=False, approximate="none", seed=0):
    B, M, K = input1.shape
    N = input2.shape[-1]
    out = torch.empty((B, M, N), dtype=input1.dtype, device=input1.device)
    random = bool(training) and 0.0 < p < 1.0
    scale = 1.0 / (1.0 - p) if random else (0.0 if training and p >= 1.0 else 1.0)
    # Large products: 128×128 tiles (8 warps) keep the tensor cores busy; small ones: 64×64 for more programs.
    big = M >= 512 and N >= 512
    BM, BN, BK, warps = (128, 128, 32, 8) if big else (64, 64, 32, 4)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), B)
    _bmm_dropout_gelu_kernel[grid](input1, input2, out, M, N, K, p, scale, seed,
                                   *input1.stride(), *input2.stride(),
                                   RANDOM=random, TANH=approximate == "tanh", BM=BM, BN=BN, BK=BK,
                                   num_warps=warps, num_stages=3)
    return out
