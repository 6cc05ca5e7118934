# Transposed convolution as an implicit GEMM in gather form: every output pixel (n, y, x) is a row, every output
# channel of a group a column, and the reduction runs over (input channel, kernel row, kernel column); the input
# pixel a tap reads is y' = (y + pad − i·dil) / stride when that division is exact and in range, else zero.
# TF32 tensor cores, as the contract allows.
import torch
import triton
import triton.language as tl


@triton.jit
def _conv_t_kernel(x_ptr, w_ptr, b_ptr, y_ptr,
                   C_in, H, W, C_out, H_out, W_out, M, K, Cg, Og,
                   sh, sw, ph, pw, dh, dw,
                   KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    g = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < Og
    ox = rm % W_out
    oy = (rm // W_out) % H_out
    nb = (rm // (W_out * H_out)).to(tl.int64)
    x_base = (nb * C_in + g * Cg) * H * W
    oc = g * Og + rn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < K
        c = rk // (KH * KW)
        i = (rk // KW) % KH
        j = rk % KW
        ty = oy[:, None] + ph - (i * dh)[None, :]
        tx = ox[:, None] + pw - (j * dw)[None, :]
        iy = ty // sh
        ix = tx // sw
        a_ok = (m_ok[:, None] & k_ok[None, :] & (ty >= 0) & (tx >= 0) & (ty % sh == 0) & (tx % sw == 0)
                & (iy < H) & (ix < W))
        a_off = x_base[:, None] + (c.to(tl.int64) * H * W)[None, :] + iy * W + ix
        a = tl.load(x_ptr + a_off, mask=a_ok, other=0.0)
        # weight (C_in, Og, KH, KW): tap (c, i, j) of output channel rn of group g
        b_off = ((g * Cg + c).to(tl.int64)[:, None] * Og + rn[None, :]) * (KH * KW) + (i * KW + j)[:, None]
        b = tl.load(w_ptr + b_off, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="tf32")
    if HAS_BIAS:
        acc += tl.load(b_ptr + oc, mask=n_ok, other=0.0)[None, :]
    y_off = ((nb * C_out)[:, None] + oc[None, :]) * (H_out * W_out) + (oy * W_out + ox)[:, None]
    tl.store(y_ptr + y_off, acc, mask=m_ok[:, None] & n_ok[None, :])


def _pair(v):
    return (int(v[0]), int(v[1])) if isinstance(v, (tuple, list)) else (int(v), int(v))


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    unbatched = input.dim() == 3
    x = (input.unsqueeze(0) if unbatched else input).contiguous()
    w = weight.contiguous()
    N, C_in, H, W = x.shape
    _, Og, KH, KW = w.shape
    C_out = Og * groups
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    oph, opw = _pair(output_padding)
    dh, dw = _pair(dilation)
    H_out = (H - 1) * sh - 2 * ph + dh * (KH - 1) + oph + 1
    W_out = (W - 1) * sw - 2 * pw + dw * (KW - 1) + opw + 1
    y = torch.empty((N, C_out, H_out, W_out), dtype=torch.float32, device=x.device)
    Cg = C_in // groups
    M = N * H_out * W_out
    K = Cg * KH * KW
    if M * Og >= 1 << 22:
        BM, BN, BK, warps, stages = 128, 128, 32, 8, 3
    else:
        BM, BN, BK, warps, stages = 64, 64, 32, 4, 3
    BN = min(BN, max(16, triton.next_power_of_2(Og)))
    b = bias.contiguous() if bias is not None else w
    if y.numel():
        grid = (triton.cdiv(M, BM), triton.cdiv(Og, BN), groups)
        _conv_t_kernel[grid](x, w, b, y, C_in, H, W, C_out, H_out, W_out, M, K, Cg, Og, sh, sw, ph, pw, dh, dw,
                             KH=KH, KW=KW, HAS_BIAS=bias is not None, BM=BM, BN=BN, BK=BK,
                             num_warps=warps, num_stages=stages)
    return y[0] if unbatched else y
