import torch
import triton
import triton.language as tl

# Implicit-GEMM convolution (tl.dot, TF32 as the contract allows) into the output buffer; per-sample statistics
# over C·H·W from shifted sums split across programs; one elementwise pass then rewrites the buffer with
# silu((v − mean)·rstd). `weight` is unused, as the task says.


@triton.jit
def conv_kernel(x_ptr, w_ptr, b_ptr, y_ptr,
                NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                sxn, sxc, sxh, sxw, swo, swc, swh, sww, sb,
                HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g = tl.program_id(2)
    M = NB * OH * OW
    K = C_in_g * KH * KW
    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < M
    n_ok = rn < C_out_g
    ow = rm % OW
    t = rm // OW
    oh = t % OH
    n = t // OH
    ih0 = oh * sh - ph
    iw0 = ow * sw - pw
    x_base = x_ptr + n * sxn + (g * C_in_g).to(tl.int64) * sxc
    co = g * C_out_g + rn
    w_base = w_ptr + co.to(tl.int64) * swo
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        k_ok = kk < K
        kw_ = kk % KW
        t2 = kk // KW
        kh_ = t2 % KH
        c = t2 // KH
        ih = ih0[:, None] + (kh_ * dh)[None, :]
        iw = iw0[:, None] + (kw_ * dw)[None, :]
        a_ok = m_ok[:, None] & k_ok[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_base[:, None] + c[None, :].to(tl.int64) * sxc + ih * sxh + iw * sxw, mask=a_ok, other=0.0)
        b = tl.load(w_base[None, :] + (c * swc + kh_ * swh + kw_ * sww)[:, None], mask=k_ok[:, None] & n_ok[None, :],
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32")
    if HAS_BIAS:
        acc += tl.load(b_ptr + co * sb, mask=n_ok, other=0.0)[None, :]
    y_off = (n * C_out * OH * OW + oh * OW + ow)[:, None] + (co.to(tl.int64) * OH * OW)[None, :]
    tl.store(y_ptr + y_off, acc, mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def sample_stats_kernel(y_ptr, s1_ptr, s2_ptr, S, per_split, n_split, BLOCK: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    sp = tl.program_id(1)
    base = y_ptr + n * S
    k = tl.load(base)  # shift: the sample's first value
    acc1 = tl.zeros((BLOCK,), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK,), dtype=tl.float32)
    start = sp.to(tl.int64) * per_split
    for i0 in range(0, per_split, BLOCK):
        idx = start + i0 + tl.arange(0, BLOCK)
        ok = (idx < S) & ((i0 + tl.arange(0, BLOCK)) < per_split)
        d = tl.where(ok, tl.load(base + idx, mask=ok, other=0.0) - k, 0.0)
        acc1 += d
        acc2 += d * d
    tl.store(s1_ptr + n * n_split + sp, tl.sum(acc1, axis=0))
    tl.store(s2_ptr + n * n_split + sp, tl.sum(acc2, axis=0))


@triton.jit
def finalize_kernel(y_ptr, s1_ptr, s2_ptr, mr_ptr, S, n_split, eps, SPLIT_BLOCK: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    sp = tl.arange(0, SPLIT_BLOCK)
    s1 = tl.sum(tl.load(s1_ptr + n * n_split + sp, mask=sp < n_split, other=0.0), axis=0)
    s2 = tl.sum(tl.load(s2_ptr + n * n_split + sp, mask=sp < n_split, other=0.0), axis=0)
    k = tl.load(y_ptr + n * S)
    dmean = s1 / S
    var = tl.maximum(s2 / S - dmean * dmean, 0.0)
    tl.store(mr_ptr + 2 * n, k + dmean)
    tl.store(mr_ptr + 2 * n + 1, 1.0 / tl.sqrt(var + eps))


@triton.jit
def silu_norm_kernel(y_ptr, mr_ptr, S, BLOCK: tl.constexpr):
    n = tl.program_id(1).to(tl.int64)
    mean = tl.load(mr_ptr + 2 * n)
    rstd = tl.load(mr_ptr + 2 * n + 1)
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = idx < S
    v = tl.load(y_ptr + n * S + idx, mask=ok, other=0.0)
    t = (v - mean) * rstd
    tl.store(y_ptr + n * S + idx, t / (1.0 + tl.exp(-t)), mask=ok)


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def fused_silu_layer_norm_conv2d(x, weight, conv_weight, conv_bias=None, conv_stride=1, conv_padding=0,
                                 conv_dilation=1, conv_groups=1, ln_eps=1e-5):
    NB, C_in, H, W = x.shape
    C_out, C_in_g, KH, KW = conv_weight.shape
    sh, sw = pair(conv_stride)
    dh, dw = pair(conv_dilation)
    if isinstance(conv_padding, str):
        ph, pw = (0, 0) if conv_padding == "valid" else (dh * (KH - 1) // 2, dw * (KW - 1) // 2)
    else:
        ph, pw = pair(conv_padding)
    if isinstance(conv_padding, str) and conv_padding == "same":
        OH, OW = H, W
    else:
        OH = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
        OW = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    dev = x.device
    y = torch.empty((NB, C_out, OH, OW), dtype=torch.float32, device=dev)
    if y.numel() == 0:
        return y
    C_out_g = C_out // conv_groups
    BLOCK_M = 128
    BLOCK_N = max(16, min(64, triton.next_power_of_2(C_out_g)))
    BLOCK_K = max(16, min(32, triton.next_power_of_2(C_in_g * KH * KW)))
    grid = (triton.cdiv(NB * OH * OW, BLOCK_M), triton.cdiv(C_out_g, BLOCK_N), conv_groups)
    conv_kernel[grid](x, conv_weight, conv_bias if conv_bias is not None else y, y,
                      NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                      *x.stride(), *conv_weight.stride(), conv_bias.stride(0) if conv_bias is not None else 0,
                      HAS_BIAS=conv_bias is not None, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                      num_warps=4, num_stages=3)
    S = C_out * OH * OW
    BLOCK = 1024
    n_split = max(1, min(256, triton.cdiv(S, 4 * BLOCK), triton.cdiv(512, NB)))
    per_split = triton.cdiv(triton.cdiv(S, n_split), BLOCK) * BLOCK
    n_split = triton.cdiv(S, per_split)
    s1 = torch.empty((NB, n_split), dtype=torch.float32, device=dev)
    s2 = torch.empty((NB, n_split), dtype=torch.float32, device=dev)
    sample_stats_kernel[(NB, n_split)](y, s1, s2, S, per_split, n_split, BLOCK=BLOCK)
    mr = torch.empty((NB, 2), dtype=torch.float32, device=dev)
    finalize_kernel[(NB,)](y, s1, s2, mr, S, n_split, float(ln_eps),
                           SPLIT_BLOCK=max(16, triton.next_power_of_2(n_split)))
    silu_norm_kernel[(triton.cdiv(S, BLOCK), NB)](y, mr, S, BLOCK=BLOCK)
    return y
