import torch
import triton
import triton.language as tl

# One kernel: rows of the implicit GEMM are pooled output pixels; for each position of the pooling window the
# program computes the convolution at that position's input pixel for its block of channels (tl.dot, TF32 as
# the contract allows) and keeps the running max (window positions in the padding count as -inf). The
# convolution's output is never written; bias (a per-channel constant commutes with max) and ReLU are applied
# to the pooled tile.


@triton.jit
def conv_pool_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr,
                          NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                          PH, PW, PKH, PKW, psh, psw, pph, ppw, pdh, pdw,
                          sxn, sxc, sxh, sxw, swo, swc, swh, sww, sb,
                          HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g = tl.program_id(2)
    MP = NB * PH * PW
    K = C_in_g * KH * KW
    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < MP
    n_ok = rn < C_out_g
    pw_ = rm % PW
    t = rm // PW
    ph_ = t % PH
    n = t // PH
    x_base = x_ptr + n * sxn + (g * C_in_g).to(tl.int64) * sxc
    co = g * C_out_g + rn
    w_base = w_ptr + co.to(tl.int64) * swo
    res = tl.full((BLOCK_M, BLOCK_N), float("-inf"), dtype=tl.float32)
    for win in range(0, PKH * PKW):
        i = win // PKW
        j = win % PKW
        oh = ph_ * psh - pph + i * pdh
        ow = pw_ * psw - ppw + j * pdw
        row_ok = m_ok & (oh >= 0) & (oh < OH) & (ow >= 0) & (ow < OW)
        ih0 = oh * sh - ph
        iw0 = ow * sw - pw
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
            a_ok = row_ok[:, None] & k_ok[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            a = tl.load(x_base[:, None] + c[None, :].to(tl.int64) * sxc + ih * sxh + iw * sxw, mask=a_ok,
                        other=0.0)
            b = tl.load(w_base[None, :] + (c * swc + kh_ * swh + kw_ * sww)[:, None],
                        mask=k_ok[:, None] & n_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="tf32")
        res = tl.maximum(res, tl.where(row_ok[:, None], acc, float("-inf")))
    if HAS_BIAS:
        res += tl.load(b_ptr + co * sb, mask=n_ok, other=0.0)[None, :]
    res = tl.maximum(res, 0.0)
    y_off = (n * C_out * PH * PW + ph_ * PW + pw_)[:, None] + (co.to(tl.int64) * PH * PW)[None, :]
    tl.store(y_ptr + y_off, res, mask=m_ok[:, None] & n_ok[None, :])


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def pool_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:  # the last window may not start in the padding
        out -= 1
    return out


def fused_relu_max_pool2d_conv2d(input, weight, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1,
                                 conv_groups=1, pool_kernel_size=2, pool_stride=None, pool_padding=0, pool_dilation=1,
                                 pool_ceil_mode=False, inplace=False):
    x = input if input.dim() == 4 else input.unsqueeze(0)
    NB, C_in, H, W = x.shape
    C_out, C_in_g, KH, KW = weight.shape
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
    pkh, pkw = pair(pool_kernel_size)
    psh, psw = pair(pool_stride) if pool_stride is not None else (pkh, pkw)
    pph, ppw = pair(pool_padding)
    pdh, pdw = pair(pool_dilation)
    PH = pool_size(OH, pkh, psh, pph, pdh, pool_ceil_mode)
    PW = pool_size(OW, pkw, psw, ppw, pdw, pool_ceil_mode)
    y = torch.empty((NB, C_out, PH, PW), dtype=torch.float32, device=input.device)
    C_out_g = C_out // conv_groups
    if y.numel():
        BLOCK_M = 128
        BLOCK_N = max(16, min(64, triton.next_power_of_2(C_out_g)))
        BLOCK_K = max(16, min(32, triton.next_power_of_2(C_in_g * KH * KW)))
        grid = (triton.cdiv(NB * PH * PW, BLOCK_M), triton.cdiv(C_out_g, BLOCK_N), conv_groups)
        conv_pool_relu_kernel[grid](x, weight, bias if bias is not None else y, y,
                                    NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                                    PH, PW, pkh, pkw, psh, psw, pph, ppw, pdh, pdw,
                                    *x.stride(), *weight.stride(), bias.stride(0) if bias is not None else 0,
                                    HAS_BIAS=bias is not None, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                    num_warps=4, num_stages=3)
    return y if input.dim() == 4 else y.squeeze(0)
