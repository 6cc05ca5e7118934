import torch
import triton
import triton.language as tl

# affine_grid fused into grid_sample: one program per block of output positions of one image computes each
# position's normalized base coordinate, maps it through theta, unnormalizes it and applies the padding rule
# once, then loops over the channels, gathering the 1, 4 or 16 neighbours; stores are contiguous row segments.
# Inputs are read through their strides; the grid is never materialized.

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


@triton.jit
def _reflect(x, twice_low, twice_high):
    # reflect x about the borders twice_low/2 and twice_high/2, repeatedly (as ATen's reflect_coordinates)
    lo = twice_low * 0.5
    span = (twice_high - twice_low) * 0.5
    d = tl.abs(x - lo)
    extra = d - tl.floor(d / span) * span
    flips = tl.floor(d / span)
    odd = (flips - 2.0 * tl.floor(flips * 0.5)) != 0.0
    return tl.where(odd, span - extra + lo, extra + lo)


@triton.jit
def _source(coord, size, PAD: tl.constexpr, ALIGN: tl.constexpr):
    sizef = size.to(tl.float32)
    if ALIGN:
        x = (coord + 1.0) * 0.5 * (sizef - 1.0)
    else:
        x = ((coord + 1.0) * sizef - 1.0) * 0.5
    if PAD == 1:
        x = tl.minimum(tl.maximum(x, 0.0), sizef - 1.0)
    elif PAD == 2:
        if ALIGN:
            x = tl.where(size > 1, _reflect(x, 0.0, 2.0 * (sizef - 1.0)), 0.0)
        else:
            x = _reflect(x, -1.0, 2.0 * sizef - 1.0)
        x = tl.minimum(tl.maximum(x, 0.0), sizef - 1.0)
    return x


@triton.jit
def _round_half_even(x):
    r = tl.floor(x + 0.5)
    tie = (r - x) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def _unnormalize(coord, size, ALIGN: tl.constexpr):
    sizef = size.to(tl.float32)
    if ALIGN:
        return (coord + 1.0) * 0.5 * (sizef - 1.0)
    return ((coord + 1.0) * sizef - 1.0) * 0.5


@triton.jit
def _pad_index(i, size, PAD: tl.constexpr, ALIGN: tl.constexpr):
    # an integer tap index (as float) moved by the padding rule; zeros padding leaves it (bounds-checked later)
    sizef = size.to(tl.float32)
    x = i
    if PAD == 1:
        x = tl.minimum(tl.maximum(x, 0.0), sizef - 1.0)
    elif PAD == 2:
        if ALIGN:
            x = tl.where(size > 1, _reflect(x, 0.0, 2.0 * (sizef - 1.0)), 0.0)
        else:
            x = _reflect(x, -1.0, 2.0 * sizef - 1.0)
        x = tl.minimum(tl.maximum(x, 0.0), sizef - 1.0)
    return x.to(tl.int64)


@triton.jit
def _cubic_weights(t):
    # cubic convolution with A = -0.75 for taps at distances 1 + t, t, 1 - t, 2 - t
    A = -0.75
    x0 = t + 1.0
    x2 = 1.0 - t
    x3 = 2.0 - t
    w0 = ((A * x0 - 5.0 * A) * x0 + 8.0 * A) * x0 - 4.0 * A
    w1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0
    w2 = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0
    w3 = ((A * x3 - 5.0 * A) * x3 + 8.0 * A) * x3 - 4.0 * A
    return w0, w1, w2, w3


@triton.jit
def _base(i, size, ALIGN: tl.constexpr):
    # affine_grid's normalized base coordinate of pixel i (0 for a size-1 axis)
    sizef = size.to(tl.float32)
    f = i.to(tl.float32)
    if ALIGN:
        v = -1.0 + 2.0 * f / tl.maximum(sizef - 1.0, 1.0)
    else:
        v = (2.0 * f + 1.0) / sizef - 1.0
    return tl.where(size > 1, v, 0.0)


@triton.jit
def _tap(cb, yi, xi, H, W, xs2, xs3, pmask):
    m = pmask & (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    return tl.load(cb + yi * xs2 + xi * xs3, mask=m, other=0.0)


# Triton turns an int argument equal to 1 into a constant, and _base/_unnormalize call .to() on the sizes:
# size-1 axes (a contract case) must stay runtime values.
@triton.jit(do_not_specialize=["H", "W", "Ho", "Wo"])
def _affine_sample_kernel(x_ptr, t_ptr, out_ptr, C, H, W, Ho, Wo, xs0, xs1, xs2, xs3, ts0, ts1, ts2,
                          MODE: tl.constexpr, PAD: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(1).to(tl.int64)
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    pmask = p < Ho * Wo
    oh = p // Wo
    ow = p % Wo
    tb = t_ptr + n * ts0
    t00 = tl.load(tb).to(tl.float32)
    t01 = tl.load(tb + ts2).to(tl.float32)
    t02 = tl.load(tb + 2 * ts2).to(tl.float32)
    t10 = tl.load(tb + ts1).to(tl.float32)
    t11 = tl.load(tb + ts1 + ts2).to(tl.float32)
    t12 = tl.load(tb + ts1 + 2 * ts2).to(tl.float32)
    bx = _base(ow, Wo, ALIGN)
    by = _base(oh, Ho, ALIGN)
    gx = bx * t00 + by * t01 + t02
    gy = bx * t10 + by * t11 + t12
    xbase = x_ptr + n * xs0
    obase = out_ptr + n * C * Ho * Wo + p
    if MODE == 2:
        ix = _unnormalize(gx, W, ALIGN)
        iy = _unnormalize(gy, H, ALIGN)
        fx = tl.floor(ix)
        fy = tl.floor(iy)
        wx0, wx1, wx2, wx3 = _cubic_weights(ix - fx)
        wy0, wy1, wy2, wy3 = _cubic_weights(iy - fy)
        xa = _pad_index(fx - 1.0, W, PAD, ALIGN)
        xb = _pad_index(fx, W, PAD, ALIGN)
        xc = _pad_index(fx + 1.0, W, PAD, ALIGN)
        xd = _pad_index(fx + 2.0, W, PAD, ALIGN)
        ya = _pad_index(fy - 1.0, H, PAD, ALIGN)
        yb = _pad_index(fy, H, PAD, ALIGN)
        yc = _pad_index(fy + 1.0, H, PAD, ALIGN)
        yd = _pad_index(fy + 2.0, H, PAD, ALIGN)
        for c in range(0, C):
            cb = xbase + c * xs1
            ra = (_tap(cb, ya, xa, H, W, xs2, xs3, pmask) * wx0 + _tap(cb, ya, xb, H, W, xs2, xs3, pmask) * wx1
                  + _tap(cb, ya, xc, H, W, xs2, xs3, pmask) * wx2 + _tap(cb, ya, xd, H, W, xs2, xs3, pmask) * wx3)
            rb = (_tap(cb, yb, xa, H, W, xs2, xs3, pmask) * wx0 + _tap(cb, yb, xb, H, W, xs2, xs3, pmask) * wx1
                  + _tap(cb, yb, xc, H, W, xs2, xs3, pmask) * wx2 + _tap(cb, yb, xd, H, W, xs2, xs3, pmask) * wx3)
            rc = (_tap(cb, yc, xa, H, W, xs2, xs3, pmask) * wx0 + _tap(cb, yc, xb, H, W, xs2, xs3, pmask) * wx1
                  + _tap(cb, yc, xc, H, W, xs2, xs3, pmask) * wx2 + _tap(cb, yc, xd, H, W, xs2, xs3, pmask) * wx3)
            rd = (_tap(cb, yd, xa, H, W, xs2, xs3, pmask) * wx0 + _tap(cb, yd, xb, H, W, xs2, xs3, pmask) * wx1
                  + _tap(cb, yd, xc, H, W, xs2, xs3, pmask) * wx2 + _tap(cb, yd, xd, H, W, xs2, xs3, pmask) * wx3)
            tl.store(obase + c * Ho * Wo, ra * wy0 + rb * wy1 + rc * wy2 + rd * wy3, mask=pmask)
    else:
        ix = _source(gx, W, PAD, ALIGN)
        iy = _source(gy, H, PAD, ALIGN)
        if MODE == 0:
            fx = tl.floor(ix)
            fy = tl.floor(iy)
            x0 = fx.to(tl.int64)
            y0 = fy.to(tl.int64)
            tx = ix - fx
            ty = iy - fy
            for c in range(0, C):
                cb = xbase + c * xs1
                v = _tap(cb, y0, x0, H, W, xs2, xs3, pmask) * ((1.0 - tx) * (1.0 - ty))
                v += _tap(cb, y0, x0 + 1, H, W, xs2, xs3, pmask) * (tx * (1.0 - ty))
                v += _tap(cb, y0 + 1, x0, H, W, xs2, xs3, pmask) * ((1.0 - tx) * ty)
                v += _tap(cb, y0 + 1, x0 + 1, H, W, xs2, xs3, pmask) * (tx * ty)
                tl.store(obase + c * Ho * Wo, v, mask=pmask)
        else:
            xn = _round_half_even(ix).to(tl.int64)
            yn = _round_half_even(iy).to(tl.int64)
            for c in range(0, C):
                tl.store(obase + c * Ho * Wo, _tap(xbase + c * xs1, yn, xn, H, W, xs2, xs3, pmask), mask=pmask)


def grid_sample_with_affine(input, theta, size, mode="bilinear", padding_mode="zeros", align_corners=False):
    N, C, H, W = input.shape
    Ho, Wo = int(size[2]), int(size[3])
    out = torch.empty((N, C, Ho, Wo), dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    BLOCK = 256
    grid_dims = (triton.cdiv(Ho * Wo, BLOCK), N)
    _affine_sample_kernel[grid_dims](input, theta, out, C, H, W, Ho, Wo, *input.stride(), *theta.stride(),
                                     MODE=_MODES.index(mode), PAD=_PADDINGS.index(padding_mode),
                                     ALIGN=bool(align_corners), BLOCK=BLOCK, num_warps=4)
    return out
