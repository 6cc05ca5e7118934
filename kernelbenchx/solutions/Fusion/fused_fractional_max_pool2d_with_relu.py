import torch
import triton
import triton.language as tl


@triton.jit
def _starts(o, n_out, u, num, den, last):
    # torch's interval rule, in float32: alpha = (L - K) / (O - 1), start_i = int((i + u)·alpha) - int(u·alpha).
    alpha = tl.math.div_rn(tl.full(o.shape, num, tl.float32), den)
    s = ((o.to(tl.float32) + u) * alpha).to(tl.int32) - (u * alpha).to(tl.int32)
    return tl.where(o == n_out - 1, last, s)


@triton.jit
def _frac_pool_kernel(x_ptr, u_ptr, out_ptr, idx_ptr, H, W, OH, OW, num_h, den_h, num_w, den_w,
                      KH: tl.constexpr, KW: tl.constexpr, INDICES: tl.constexpr,
                      BH: tl.constexpr, BW: tl.constexpr):
    plane = tl.program_id(0)
    oh = tl.program_id(1) * BH + tl.arange(0, BH)
    ow = tl.program_id(2) * BW + tl.arange(0, BW)
    u_w = tl.load(u_ptr + plane * 2)
    u_h = tl.load(u_ptr + plane * 2 + 1)
    h0 = _starts(oh, OH, u_h, num_h, den_h, H - KH)
    w0 = _starts(ow, OW, u_w, num_w, den_w, W - KW)
    ok = (oh[:, None] < OH) & (ow[None, :] < OW)
    base = x_ptr + plane.to(tl.int64) * H * W
    best = tl.full((BH, BW), float("-inf"), tl.float32)
    best_idx = h0[:, None] * W + w0[None, :]
    for a in tl.static_range(KH):
        for b in tl.static_range(KW):
            flat = (h0[:, None] + a) * W + (w0[None, :] + b)
            v = tl.load(base + flat, mask=ok, other=0.0)
            v = tl.where(v < 0.0, 0.0, v)  # ReLU that keeps NaN
            take = (v > best) | (v != v)  # first strict maximum; NaN always replaces
            best = tl.where(take, v, best)
            best_idx = tl.where(take, flat, best_idx)
    out_offs = plane.to(tl.int64) * OH * OW + oh[:, None] * OW + ow[None, :]
    tl.store(out_ptr + out_offs, best, mask=ok)
    if INDICES:
        tl.store(idx_ptr + out_offs, best_idx.to(tl.int64), mask=ok)


def _pair(v):
    return (v, v) if isinstance(v, (int, float)) else tuple(v)


def fused_fractional_max_pool2d_with_relu(input, kernel_size, output_size=None, output_ratio=None,
                                          return_indices=False, *, random_samples):
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    kh, kw = _pair(kernel_size)
    if output_size is not None:
        oh, ow = _pair(output_size)
    else:
        rh, rw = _pair(output_ratio)
        oh, ow = int(h * rh), int(w * rw)
    out = torch.empty((n, c, oh, ow), dtype=x.dtype, device=x.device)
    idx = torch.empty((n, c, oh, ow), dtype=torch.int64, device=x.device)
    BH, BW = 16, 16
    grid = (n * c, triton.cdiv(oh, BH), triton.cdiv(ow, BW))
    _frac_pool_kernel[grid](x.contiguous(), random_samples.contiguous(), out, idx, h, w, oh, ow,
                            float(h - kh), float(max(oh - 1, 1)), float(w - kw), float(max(ow - 1, 1)),
                            KH=kh, KW=kw, INDICES=return_indices, BH=BH, BW=BW)
    if input.dim() == 3:
        out, idx = out[0], idx[0]
    return (out, idx) if return_indices else out
