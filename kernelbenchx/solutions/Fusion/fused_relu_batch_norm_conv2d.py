import torch
import triton
import triton.language as tl

# Convolution as an implicit GEMM (tl.dot, TF32 as the contract allows). Eval mode: the normalization and the
# affine parameters are folded into per-channel scale/shift first, and the convolution's epilogue writes
# relu(v·scale + shift) directly. Training mode: the convolution writes v (+ bias), per-channel statistics are
# reduced from it (shifted sums, split over the batch), merged with the running-statistics update, then one
# elementwise pass applies relu(v·scale + shift) in place of v.


@triton.jit
def conv_kernel(x_ptr, w_ptr, b_ptr, scale_ptr, shift_ptr, y_ptr,
                NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                sxn, sxc, sxh, sxw, swo, swc, swh, sww, sb,
                HAS_BIAS: tl.constexpr, AFFINE_RELU: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
    if AFFINE_RELU:
        scale = tl.load(scale_ptr + co, mask=n_ok, other=0.0)
        shift = tl.load(shift_ptr + co, mask=n_ok, other=0.0)
        acc = tl.maximum(acc * scale[None, :] + shift[None, :], 0.0)
    y_off = (n * C_out * OH * OW + oh * OW + ow)[:, None] + (co.to(tl.int64) * OH * OW)[None, :]
    tl.store(y_ptr + y_off, acc, mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def stats_kernel(y_ptr, s1_ptr, s2_ptr, NB, C, L, n_per_split, BLOCK_L: tl.constexpr):
    c = tl.program_id(0)
    split = tl.program_id(1)
    k = tl.load(y_ptr + c.to(tl.int64) * L)  # y[0, c, 0]: a shift that removes the cancellation of a large mean
    acc1 = tl.zeros((BLOCK_L,), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_L,), dtype=tl.float32)
    for dn in range(0, n_per_split):
        n = split * n_per_split + dn
        base = y_ptr + (n.to(tl.int64) * C + c) * L
        for l0 in range(0, L, BLOCK_L):
            ls = l0 + tl.arange(0, BLOCK_L)
            ok = (ls < L) & (n < NB)
            d = tl.where(ok, tl.load(base + ls, mask=ok, other=0.0) - k, 0.0)
            acc1 += d
            acc2 += d * d
    tl.store(s1_ptr + split * C + c, tl.sum(acc1, axis=0))
    tl.store(s2_ptr + split * C + c, tl.sum(acc2, axis=0))


@triton.jit
def finalize_kernel(y_ptr, s1_ptr, s2_ptr, rm_ptr, rv_ptr, w_ptr, b_ptr, cb_ptr, scale_ptr, shift_ptr,
                    C, L, count, n_split, rm_stride, rv_stride, w_stride, b_stride, cb_stride, momentum, eps,
                    TRAINING: tl.constexpr, HAS_STATS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                    HAS_CB: tl.constexpr, BLOCK: tl.constexpr):
    c = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = c < C
    if TRAINING:
        k = tl.load(y_ptr + c.to(tl.int64) * L, mask=ok, other=0.0)
        s1 = tl.zeros((BLOCK,), dtype=tl.float32)
        s2 = tl.zeros((BLOCK,), dtype=tl.float32)
        for sp in range(0, n_split):
            s1 += tl.load(s1_ptr + sp * C + c, mask=ok, other=0.0)
            s2 += tl.load(s2_ptr + sp * C + c, mask=ok, other=0.0)
        dmean = s1 / count
        mean = k + dmean
        var = tl.maximum(s2 / count - dmean * dmean, 0.0)
        if HAS_STATS:
            rm = tl.load(rm_ptr + c * rm_stride, mask=ok, other=0.0)
            rv = tl.load(rv_ptr + c * rv_stride, mask=ok, other=0.0)
            tl.store(rm_ptr + c * rm_stride, (1.0 - momentum) * rm + momentum * mean, mask=ok)
            tl.store(rv_ptr + c * rv_stride, (1.0 - momentum) * rv + momentum * (var * count / (count - 1.0)),
                     mask=ok)
    else:
        mean = tl.load(rm_ptr + c * rm_stride, mask=ok, other=0.0)
        var = tl.load(rv_ptr + c * rv_stride, mask=ok, other=1.0)
    scale = 1.0 / tl.sqrt(var + eps)
    if HAS_W:
        scale = scale * tl.load(w_ptr + c * w_stride, mask=ok, other=1.0)
    shift = -mean * scale
    if HAS_B:
        shift += tl.load(b_ptr + c * b_stride, mask=ok, other=0.0)
    if HAS_CB:  # eval mode: the convolution's bias goes through the same affine map
        shift += tl.load(cb_ptr + c * cb_stride, mask=ok, other=0.0) * scale
    tl.store(scale_ptr + c, scale, mask=ok)
    tl.store(shift_ptr + c, shift, mask=ok)


@triton.jit
def apply_kernel(y_ptr, scale_ptr, shift_ptr, total, C, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    c = (offs // L) % C
    v = tl.load(y_ptr + offs, mask=ok, other=0.0)
    s = tl.load(scale_ptr + c, mask=ok, other=0.0)
    b = tl.load(shift_ptr + c, mask=ok, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(v * s + b, 0.0), mask=ok)


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def fused_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                                 running_mean=None, running_var=None, bn_weight=None, bn_bias=None, training=False,
                                 momentum=0.1, eps=1e-5, inplace=False):
    NB, C_in, H, W = input.shape
    C_out, C_in_g, KH, KW = weight.shape
    sh, sw = pair(stride)
    dh, dw = pair(dilation)
    if isinstance(padding, str):
        ph, pw = (0, 0) if padding == "valid" else (dh * (KH - 1) // 2, dw * (KW - 1) // 2)
    else:
        ph, pw = pair(padding)
    if isinstance(padding, str) and padding == "same":
        OH, OW = H, W
    else:
        OH = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
        OW = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    dev = input.device
    y = torch.empty((NB, C_out, OH, OW), dtype=torch.float32, device=dev)
    scale = torch.empty(C_out, dtype=torch.float32, device=dev)
    shift = torch.empty(C_out, dtype=torch.float32, device=dev)
    L = OH * OW
    has_stats = running_mean is not None and running_var is not None
    rm = running_mean if has_stats else scale
    rv = running_var if has_stats else scale
    bw = bn_weight if bn_weight is not None else scale
    bb = bn_bias if bn_bias is not None else scale
    cb = bias if bias is not None else scale
    C_out_g = C_out // groups
    M = NB * L
    BLOCK_M = 128
    BLOCK_N = max(16, min(64, triton.next_power_of_2(C_out_g)))
    BLOCK_K = max(16, min(32, triton.next_power_of_2(C_in_g * KH * KW)))
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(C_out_g, BLOCK_N), groups)
    FB = 256

    def finalize(s1, s2, n_split, is_training):
        finalize_kernel[(triton.cdiv(C_out, FB),)](
            y, s1, s2, rm, rv, bw, bb, cb, scale, shift, C_out, L, float(NB * L), n_split,
            rm.stride(0), rv.stride(0), bw.stride(0), bb.stride(0), cb.stride(0), float(momentum), float(eps),
            TRAINING=is_training, HAS_STATS=has_stats, HAS_W=bn_weight is not None, HAS_B=bn_bias is not None,
            HAS_CB=(bias is not None) and not is_training, BLOCK=FB)

    def conv(has_bias, affine):
        conv_kernel[grid](input, weight, cb, scale, shift, y, NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW,
                          sh, sw, ph, pw, dh, dw, *input.stride(), *weight.stride(), cb.stride(0),
                          HAS_BIAS=has_bias, AFFINE_RELU=affine, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                          num_warps=4, num_stages=3)

    if y.numel() == 0:
        return y
    if not training:
        finalize(scale, scale, 1, False)
        conv(False, True)
        return y
    conv(bias is not None, False)
    n_split = max(1, min(NB, triton.cdiv(512, C_out)))
    n_per_split = triton.cdiv(NB, n_split)
    n_split = triton.cdiv(NB, n_per_split)
    s1 = torch.empty((n_split, C_out), dtype=torch.float32, device=dev)
    s2 = torch.empty((n_split, C_out), dtype=torch.float32, device=dev)
    stats_kernel[(C_out, n_split)](y, s1, s2, NB, C_out, L, n_per_split, BLOCK_L=min(1024, triton.next_power_of_2(L)))
    finalize(s1, s2, n_split, True)
    total = y.numel()
    apply_kernel[(triton.cdiv(total, 1024),)](y, scale, shift, total, C_out, L, BLOCK=1024)
    return y
