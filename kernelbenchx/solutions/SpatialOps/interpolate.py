import math

import torch
import triton
import triton.language as tl

_MODES = {"nearest": 0, "nearest-exact": 1, "bilinear": 2, "bicubic": 3}


@triton.jit
def _cubic_weights(t):
    # Cubic convolution (Keys) with A = -0.75, for taps at distances 1 + t, t, 1 - t, 2 - t.
    A = -0.75
    x0 = t + 1.0
    x3 = 2.0 - t
    x2 = 1.0 - t
    w0 = ((A * x0 - 5.0 * A) * x0 + 8.0 * A) * x0 - 4.0 * A
    w1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0
    w2 = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0
    w3 = ((A * x3 - 5.0 * A) * x3 + 8.0 * A) * x3 - 4.0 * A
    return w0, w1, w2, w3


@triton.jit
def _source(dst, scale, in_size, MODE: tl.constexpr, ALIGN: tl.constexpr):
    """Source index (nearest modes) or real coordinate (linear and cubic) along one axis."""
    d = dst.to(tl.float32)
    if MODE == 0:
        return tl.minimum(tl.floor(d * scale).to(tl.int32), in_size - 1)
    elif MODE == 1:
        return tl.minimum(tl.floor((d + 0.5) * scale).to(tl.int32), in_size - 1)
    else:
        if ALIGN:
            return d * scale
        src = scale * (d + 0.5) - 0.5
        if MODE == 2:
            src = tl.maximum(src, 0.0)
        return src


@triton.jit
def _row_cubic(base, row, x0, wx0, wx1, wx2, wx3, W, mask):
    r = base + row * W
    v0 = tl.load(r + tl.minimum(tl.maximum(x0 - 1, 0), W - 1), mask=mask, other=0.0)
    v1 = tl.load(r + tl.minimum(tl.maximum(x0, 0), W - 1), mask=mask, other=0.0)
    v2 = tl.load(r + tl.minimum(tl.maximum(x0 + 1, 0), W - 1), mask=mask, other=0.0)
    v3 = tl.load(r + tl.minimum(tl.maximum(x0 + 2, 0), W - 1), mask=mask, other=0.0)
    return v0 * wx0 + v1 * wx1 + v2 * wx2 + v3 * wx3


@triton.jit
def _interp_kernel(x_ptr, y_ptr, total, H, W, Ho, Wo, scale_h, scale_w,
                   MODE: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    ow = (offs % Wo).to(tl.int32)
    oh = ((offs // Wo) % Ho).to(tl.int32)
    base = x_ptr + (offs // (Wo * Ho)) * (H * W)
    sy = _source(oh, scale_h, H, MODE, ALIGN)
    sx = _source(ow, scale_w, W, MODE, ALIGN)
    if MODE <= 1:
        val = tl.load(base + sy * W + sx, mask=mask, other=0.0)
    elif MODE == 2:
        y0 = sy.to(tl.int32)  # sy >= 0, so truncation is floor
        x0 = sx.to(tl.int32)
        ly = sy - y0.to(tl.float32)
        lx = sx - x0.to(tl.float32)
        y1 = tl.minimum(y0 + 1, H - 1)
        x1 = tl.minimum(x0 + 1, W - 1)
        v00 = tl.load(base + y0 * W + x0, mask=mask, other=0.0)
        v01 = tl.load(base + y0 * W + x1, mask=mask, other=0.0)
        v10 = tl.load(base + y1 * W + x0, mask=mask, other=0.0)
        v11 = tl.load(base + y1 * W + x1, mask=mask, other=0.0)
        val = (1.0 - ly) * ((1.0 - lx) * v00 + lx * v01) + ly * ((1.0 - lx) * v10 + lx * v11)
    else:
        fy = tl.floor(sy)
        fx = tl.floor(sx)
        y0 = fy.to(tl.int32)
        x0 = fx.to(tl.int32)
        wy0, wy1, wy2, wy3 = _cubic_weights(sy - fy)
        wx0, wx1, wx2, wx3 = _cubic_weights(sx - fx)
        r0 = _row_cubic(base, tl.minimum(tl.maximum(y0 - 1, 0), H - 1), x0, wx0, wx1, wx2, wx3, W, mask)
        r1 = _row_cubic(base, tl.minimum(tl.maximum(y0, 0), H - 1), x0, wx0, wx1, wx2, wx3, W, mask)
        r2 = _row_cubic(base, tl.minimum(tl.maximum(y0 + 1, 0), H - 1), x0, wx0, wx1, wx2, wx3, W, mask)
        r3 = _row_cubic(base, tl.minimum(tl.maximum(y0 + 2, 0), H - 1), x0, wx0, wx1, wx2, wx3, W, mask)
        val = r0 * wy0 + r1 * wy1 + r2 * wy2 + r3 * wy3
    tl.store(y_ptr + offs, val, mask=mask)


def _pair(v):
    return (v, v) if not isinstance(v, (tuple, list)) else tuple(v)


def _scale(in_size, out_size, factor, linear, align):
    if linear and align:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if factor is not None and factor > 0:
        return 1.0 / factor
    return in_size / out_size


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    x = input.contiguous()
    N, C, H, W = x.shape
    factors = _pair(scale_factor) if scale_factor is not None else (None, None)
    if size is not None:
        Ho, Wo = _pair(size)
    else:
        Ho, Wo = (int(math.floor(s * f)) for s, f in zip((H, W), factors))
    code = _MODES[mode]
    linear = code >= 2
    align = bool(align_corners) if linear else False
    y = torch.empty(N, C, Ho, Wo, dtype=x.dtype, device=x.device)
    total = y.numel()
    if total:
        BLOCK = 512
        _interp_kernel[(triton.cdiv(total, BLOCK),)](
            x, y, total, H, W, Ho, Wo, _scale(H, Ho, factors[0], linear, align),
            _scale(W, Wo, factors[1], linear, align), MODE=code, ALIGN=align, BLOCK=BLOCK)
    return y
