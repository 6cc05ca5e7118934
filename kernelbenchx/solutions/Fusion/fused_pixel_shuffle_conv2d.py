import torch
import triton
import triton.language as tl

# Implicit-GEMM convolution (tl.dot, TF32 as the contract allows) whose epilogue writes each channel co = c·r² +
# i·r + j of pixel (h, w) straight to its pixel-shuffled place (c, h·r + i, w·r + j): the shuffle is free.


@triton.jit
def conv_shuffle_kernel(x_ptr, w_ptr, b_ptr, y_ptr,
                        NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                        sxn, sxc, sxh, sxw, swo, swc, swh, sww, sb, R,
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
    rr = R * R
    c_sh = co // rr
    i = (co % rr) // R
    j = co % R
    OHR = OH * R
    OWR = OW * R
    row = oh[:, None] * R + i[None, :]
    col = ow[:, None] * R + j[None, :]
    y_off = n[:, None] * (C_out // rr) * OHR * OWR + c_sh[None, :].to(tl.int64) * OHR * OWR + row * OWR + col
    tl.store(y_ptr + y_off, acc, mask=m_ok[:, None] & n_ok[None, :])


def pair(v):
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def fused_pixel_shuffle_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, upscale_factor=2):
    x = input if input.dim() == 4 else input.unsqueeze(0)
    NB, C_in, H, W = x.shape
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
    r = int(upscale_factor)
    y = torch.empty((NB, C_out // (r * r), OH * r, OW * r), dtype=torch.float32, device=input.device)
    C_out_g = C_out // groups
    if y.numel():
        BLOCK_M = 128
        BLOCK_N = max(16, min(64, triton.next_power_of_2(C_out_g)))
        BLOCK_K = max(16, min(32, triton.next_power_of_2(C_in_g * KH * KW)))
        grid = (triton.cdiv(NB * OH * OW, BLOCK_M), triton.cdiv(C_out_g, BLOCK_N), groups)
        conv_shuffle_kernel[grid](x, weight, bias if bias is not None else y, y,
                                  NB, C_in_g, H, W, C_out, C_out_g, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw,
                                  *x.stride(), *weight.stride(), bias.stride(0) if bias is not None else 0, r,
                                  HAS_BIAS=bias is not None, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                  num_warps=4, num_stages=3)
    return y if input.dim() == 4 else y.squeeze(0)
