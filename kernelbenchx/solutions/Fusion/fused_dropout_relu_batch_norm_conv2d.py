import torch
import triton
import triton.language as tl

# Three deterministic passes (no atomics: the same inputs and seed give the same bits):
# 1. implicit-GEMM convolution (TF32 tensor cores): rows = output pixels of all images, columns = output channels
#    of one group, reduction = C_in/groups·kH·kW; writes x = conv + bias and, per tile and channel, the tile's
#    mean and sum of squared deviations (Chan's parallel variance: no cancellation of E[x²] − E[x]²);
# 2. per channel, the tiles' statistics merged in a fixed order → mean and 1/√(var + 1e-5) (biased variance);
# 3. elementwise: ReLU((x − mean)·rstd), dropout with one Philox counter per output element.


@triton.jit
def _conv_stats_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, m2_ptr,
                       NPIX, HWo, Wo, H, W, C_out, Cin_g, Cout_g, KHW, KW, KRED,
                       sh, sw, ph, pw, dh, dw,
                       sxn, sxc, sxh, sxw, swo, swi, swh, sww, sb,
                       HAS_BIAS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    g = tl.program_id(2)
    rows = pid_m * BM + tl.arange(0, BM)  # output pixel of all images: n·HWo + oh·Wo + ow
    cols = tl.program_id(1) * BN + tl.arange(0, BN)  # output channel within the group
    row_ok = rows < NPIX
    col_ok = cols < Cout_g
    n = rows // HWo
    hw = rows - n * HWo
    oh = hw // Wo
    ow = hw - oh * Wo
    x_base = x_ptr + n.to(tl.int64) * sxn + (g * Cin_g).to(tl.int64) * sxc
    co = g * Cout_g + cols
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k0 = 0
    while k0 < KRED:  # while, not range(): the interpreter (numpy >= 2.4) cannot range() to a runtime bound
        kk = k0 + tl.arange(0, BK)
        ci = kk // KHW
        rem = kk - ci * KHW
        kh = rem // KW
        kw = rem - kh * KW
        hi = oh[:, None] * sh - ph + kh[None, :] * dh
        wi = ow[:, None] * sw - pw + kw[None, :] * dw
        ok = row_ok[:, None] & (kk[None, :] < KRED) & (hi >= 0) & (hi < H) & (wi >= 0) & (wi < W)
        a = tl.load(x_base[:, None] + ci[None, :] * sxc + hi * sxh + wi * sxw, mask=ok, other=0.0)
        b = tl.load(w_ptr + co[None, :] * swo + ci[:, None] * swi + kh[:, None] * swh + kw[:, None] * sww,
                    mask=(kk[:, None] < KRED) & col_ok[None, :], other=0.0)
        acc += tl.dot(a, b)
        k0 += BK
    if HAS_BIAS:
        acc += tl.load(b_ptr + co * sb, mask=col_ok, other=0.0)[None, :]
    ok2 = row_ok[:, None] & col_ok[None, :]
    out_idx = (n.to(tl.int64) * C_out * HWo + hw)[:, None] + co.to(tl.int64)[None, :] * HWo
    tl.store(y_ptr + out_idx, acc, mask=ok2)
    cnt = tl.minimum(NPIX - pid_m * BM, BM).to(tl.float32)
    vals = tl.where(ok2, acc, 0.0)
    mean = tl.sum(vals, axis=0) / cnt
    dev = tl.where(ok2, acc - mean[None, :], 0.0)
    m2 = tl.sum(dev * dev, axis=0)
    tl.store(mean_ptr + pid_m * C_out + co, mean, mask=col_ok)
    tl.store(m2_ptr + pid_m * C_out + co, m2, mask=col_ok)


@triton.jit
def _channel_stats_kernel(mean_ptr, m2_ptr, stat_ptr, T, C_out, NPIX, BM, eps, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    t0 = 0
    while t0 < T:
        t = t0 + offs
        cnt = tl.minimum(NPIX - t * BM, BM).to(tl.float32)
        total += tl.where(t < T, tl.load(mean_ptr + t.to(tl.int64) * C_out + c, mask=t < T, other=0.0) * cnt, 0.0)
        t0 += BLOCK
    mean = tl.sum(total, axis=0) / NPIX
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    t0 = 0
    while t0 < T:
        t = t0 + offs
        cnt = tl.minimum(NPIX - t * BM, BM).to(tl.float32)
        mt = tl.load(mean_ptr + t.to(tl.int64) * C_out + c, mask=t < T, other=0.0)
        m2 = tl.load(m2_ptr + t.to(tl.int64) * C_out + c, mask=t < T, other=0.0)
        acc += tl.where(t < T, m2 + cnt * (mt - mean) * (mt - mean), 0.0)
        t0 += BLOCK
    var = tl.sum(acc, axis=0) / NPIX
    tl.store(stat_ptr + 2 * c, mean)
    tl.store(stat_ptr + 2 * c + 1, 1.0 / tl.sqrt(var + eps))


@triton.jit
def _bn_relu_dropout_kernel(y_ptr, stat_ptr, total, C_out, HWo, p, scale, seed,
                            RANDOM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    c = (offs // HWo) % C_out
    x = tl.load(y_ptr + offs, mask=mask, other=0.0)
    mean = tl.load(stat_ptr + 2 * c, mask=mask, other=0.0)
    rstd = tl.load(stat_ptr + 2 * c + 1, mask=mask, other=0.0)
    v = tl.maximum((x - mean) * rstd, 0.0)
    if RANDOM:
        v = tl.where(tl.rand(seed, offs) >= p, v * scale, 0.0)
    else:
        v = v * scale
    tl.store(y_ptr + offs, v, mask=mask)


def _pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def fused_dropout_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                                         p=0.5, training=True, inplace=False, seed=0):
    N, C_in, H, W = input.shape
    C_out, Cin_g, KH, KW = weight.shape
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    Ho = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    out = torch.empty((N, C_out, Ho, Wo), dtype=torch.float32, device=input.device)
    npix = N * Ho * Wo
    if out.numel() == 0:
        return out
    Cout_g = C_out // groups
    BM, BK = 64, 32
    BN = 64 if Cout_g > 32 else (32 if Cout_g > 16 else 16)
    T = triton.cdiv(npix, BM)
    tile_mean = torch.empty((T, C_out), dtype=torch.float32, device=input.device)
    tile_m2 = torch.empty((T, C_out), dtype=torch.float32, device=input.device)
    has_bias = bias is not None
    b = bias if has_bias else out
    _conv_stats_kernel[(T, triton.cdiv(Cout_g, BN), groups)](
        input, weight, b, out, tile_mean, tile_m2,
        npix, Ho * Wo, Wo, H, W, C_out, Cin_g, Cout_g, KH * KW, KW, Cin_g * KH * KW,
        sh, sw, ph, pw, dh, dw, *input.stride(), *weight.stride(), b.stride(0) if has_bias else 0,
        HAS_BIAS=has_bias, BM=BM, BN=BN, BK=BK, num_stages=3)
    stats = torch.empty((C_out, 2), dtype=torch.float32, device=input.device)
    _channel_stats_kernel[(C_out,)](tile_mean, tile_m2, stats, T, C_out, npix, BM, 1e-5,
                                    BLOCK=min(1024, triton.next_power_of_2(T)))
    random = bool(training) and 0.0 < p < 1.0
    scale = 1.0 / (1.0 - p) if random else (0.0 if training and p >= 1.0 else 1.0)
    total = out.numel()
    BLOCK = 1024
    _bn_relu_dropout_kernel[(triton.cdiv(total, BLOCK),)](out, stats, total, C_out, Ho * Wo, p, scale, seed,
                                                          RANDOM=random, BLOCK=BLOCK)
    return out
