import torch
import triton
import triton.language as tl

# Implicit-GEMM convolution (TF32 tensor cores, fp32 accumulation) with bias and GELU applied in the epilogue.

@triton.jit
def _conv_tile(x_ptr, w_ptr, b_ptr, nb, g, pid_m, pid_n, C_in, H, W, H_out, W_out, K, Cg, Og,
               sh, sw, ph, pw, dh, dw,
               KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """One (BM positions × BN output channels) tile of image nb, group g, as an implicit GEMM: rows are output
    positions (oy, ox), columns output channels of the group, the reduction runs over (c, i, j) of the group's
    input channels and the kernel window. TF32 tensor-core products, fp32 accumulation."""
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    m_ok = rm < H_out * W_out
    n_ok = rn < Og
    ox = rm % W_out
    oy = rm // W_out
    iy0 = oy * sh - ph
    ix0 = ox * sw - pw
    x_base = (nb * C_in + g * Cg) * H * W
    oc = g * Og + rn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < K
        c = rk // (KH * KW)
        i = (rk // KW) % KH
        j = rk % KW
        iy = iy0[:, None] + (i * dh)[None, :]
        ix = ix0[:, None] + (j * dw)[None, :]
        a_ok = m_ok[:, None] & k_ok[None, :] & (iy >= 0) & (iy < H) & (ix >= 0) & (ix < W)
        a = tl.load(x_ptr + x_base + (c.to(tl.int64) * H * W)[None, :] + iy * W + ix, mask=a_ok, other=0.0)
        b = tl.load(w_ptr + oc.to(tl.int64)[None, :] * K + rk[:, None], mask=k_ok[:, None] & n_ok[None, :],
                    other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
    if HAS_BIAS:
        acc += tl.load(b_ptr + oc, mask=n_ok, other=0.0)[None, :]
    return acc, rm, oc, m_ok, n_ok


@triton.jit
def _conv_gelu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, H_out, W_out, K, Cg, Og, groups,
                      sh, sw, ph, pw, dh, dw,
                      KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr, TANH: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    z = tl.program_id(2)
    nb = (z // groups).to(tl.int64)
    g = z % groups
    v, rm, oc, m_ok, n_ok = _conv_tile(x_ptr, w_ptr, b_ptr, nb, g, tl.program_id(0), tl.program_id(1), C_in,
                                       H, W, H_out, W_out, K, Cg, Og, sh, sw, ph, pw, dh, dw,
                                       KH, KW, HAS_BIAS, BM, BN, BK)
    if TANH:
        inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        out = 0.5 * v * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        out = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    y_off = (nb * C_out + oc.to(tl.int64))[None, :] * (H_out * W_out) + rm[:, None]
    tl.store(y_ptr + y_off, out, mask=m_ok[:, None] & n_ok[None, :])

def _pair(v):
    return (int(v[0]), int(v[1])) if isinstance(v, (tuple, list)) else (int(v), int(v))


def _conv_geometry(x, w, stride, padding, dilation):
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = w.shape
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if padding == "valid":
        ph, pw = 0, 0
    elif padding == "same":  # output keeps H×W; an odd total padding puts the extra row/column bottom/right
        ph, pw = dh * (KH - 1) // 2, dw * (KW - 1) // 2
    else:
        ph, pw = _pair(padding)
    if padding == "same":
        H_out, W_out = H, W
    else:
        H_out = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
        W_out = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    return N, C_in, H, W, C_out, Cg, KH, KW, sh, sw, ph, pw, dh, dw, H_out, W_out


def _conv_blocks(P, Og):
    BM = 128 if P >= 4096 else 64
    BN = min(64, max(16, triton.next_power_of_2(Og)))
    return BM, BN, 32


def fused_gelu_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, approximate="none"):
    x = input.contiguous()
    w = weight.contiguous()
    N, C_in, H, W, C_out, Cg, KH, KW, sh, sw, ph, pw, dh, dw, H_out, W_out = _conv_geometry(
        x, w, stride, padding, dilation)
    y = torch.empty((N, C_out, H_out, W_out), dtype=torch.float32, device=x.device)
    P = H_out * W_out
    Og = C_out // groups
    if N * C_out * P == 0:
        return y
    BM, BN, BK = _conv_blocks(P, Og)
    b = bias.contiguous() if bias is not None else w
    grid = (triton.cdiv(P, BM), triton.cdiv(Og, BN), N * groups)
    _conv_gelu_kernel[grid](x, w, b, y, C_in, H, W, C_out, H_out, W_out, Cg * KH * KW, Cg, Og, groups,
                            sh, sw, ph, pw, dh, dw, KH=KH, KW=KW, HAS_BIAS=bias is not None,
                            TANH=approximate == "tanh", BM=BM, BN=BN, BK=BK, num_warps=4)
    return y
