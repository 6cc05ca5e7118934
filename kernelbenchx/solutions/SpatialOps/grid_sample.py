import torch
import triton
import triton.language as tl

# One program per block of output positions of one image: the source coordinate is computed once per position
# (unnormalize, then the padding rule), and the channels are looped over, so every input read is a gather of
# the 1 or 4 neighbours and every store is a contiguous row segment. Inputs are read through their strides.

_MODES = ("bilinear", "nearest")
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
    # a block of floats, whether `size` arrives as a scalar or as the constant 1 (Triton specializes integer
    # arguments equal to 1, and W = 1 failed to compile on the GPU with size.to())
    sizef = tl.zeros_like(coord) + size
    if ALIGN:
        x = (coord + 1.0) * 0.5 * (sizef - 1.0)
    else:
        x = ((coord + 1.0) * sizef - 1.0) * 0.5
    if PAD == 1:
        x = tl.minimum(tl.maximum(x, 0.0), sizef - 1.0)
    elif PAD == 2:
        if ALIGN:
            x = tl.where(sizef > 1.0, _reflect(x, 0.0, 2.0 * (sizef - 1.0)), 0.0)
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
def _grid_sample_kernel(x_ptr, g_ptr, out_ptr, C, H, W, Ho, Wo, xs0, xs1, xs2, xs3, gs0, gs1, gs2, gs3,
                        MODE: tl.constexpr, PAD: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    n = tl.program_id(1).to(tl.int64)
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    pmask = p < Ho * Wo
    oh = p // Wo
    ow = p % Wo
    gptr = g_ptr + n * gs0 + oh * gs1 + ow * gs2
    gx = tl.load(gptr, mask=pmask, other=0.0).to(tl.float32)
    gy = tl.load(gptr + gs3, mask=pmask, other=0.0).to(tl.float32)
    ix = _source(gx, W, PAD, ALIGN)
    iy = _source(gy, H, PAD, ALIGN)
    xbase = x_ptr + n * xs0
    obase = out_ptr + n * C * Ho * Wo + p
    if MODE == 0:
        fx = tl.floor(ix)
        fy = tl.floor(iy)
        x0 = fx.to(tl.int64)
        y0 = fy.to(tl.int64)
        x1 = x0 + 1
        y1 = y0 + 1
        tx = ix - fx
        ty = iy - fy
        w00 = (1.0 - tx) * (1.0 - ty)
        w01 = tx * (1.0 - ty)
        w10 = (1.0 - tx) * ty
        w11 = tx * ty
        in_x0 = (x0 >= 0) & (x0 < W)
        in_x1 = (x1 >= 0) & (x1 < W)
        in_y0 = (y0 >= 0) & (y0 < H)
        in_y1 = (y1 >= 0) & (y1 < H)
        m00 = pmask & in_x0 & in_y0
        m01 = pmask & in_x1 & in_y0
        m10 = pmask & in_x0 & in_y1
        m11 = pmask & in_x1 & in_y1
        o00 = y0 * xs2 + x0 * xs3
        o01 = y0 * xs2 + x1 * xs3
        o10 = y1 * xs2 + x0 * xs3
        o11 = y1 * xs2 + x1 * xs3
        for c in range(0, C):
            cb = xbase + c * xs1
            v = tl.load(cb + o00, mask=m00, other=0.0) * w00
            v += tl.load(cb + o01, mask=m01, other=0.0) * w01
            v += tl.load(cb + o10, mask=m10, other=0.0) * w10
            v += tl.load(cb + o11, mask=m11, other=0.0) * w11
            tl.store(obase + c * Ho * Wo, v, mask=pmask)
    else:
        xn = _round_half_even(ix).to(tl.int64)
        yn = _round_half_even(iy).to(tl.int64)
        m = pmask & (xn >= 0) & (xn < W) & (yn >= 0) & (yn < H)
        off = yn * xs2 + xn * xs3
        for c in range(0, C):
            v = tl.load(xbase + c * xs1 + off, mask=m, other=0.0)
            tl.store(obase + c * Ho * Wo, v, mask=pmask)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    N, C, H, W = input.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    out = torch.empty((N, C, Ho, Wo), dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    BLOCK = 256
    grid_dims = (triton.cdiv(Ho * Wo, BLOCK), N)
    _grid_sample_kernel[grid_dims](input, grid, out, C, H, W, Ho, Wo, *input.stride(), *grid.stride(),
                                   MODE=_MODES.index(mode), PAD=_PADDINGS.index(padding_mode),
                                   ALIGN=bool(align_corners), BLOCK=BLOCK, num_warps=4)
    return out
