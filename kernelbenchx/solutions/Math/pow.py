import torch
import triton
import triton.language as tl

MAX_DIMS = 4
# Python-number exponents for which torch.pow takes its own path (results follow those formulas)
SPECIAL = {2.0: 1, 3.0: 2, 0.5: 3, -0.5: 4, -1.0: 5, -2.0: 6, 1.0: 7}


@triton.jit
def _powf(x, y):
    # C powf semantics from exp2(y·log2|x|) plus the special cases
    mag = tl.exp2(y * tl.log2(tl.abs(x)))
    y_int = tl.floor(y) == y  # ±inf count as (even) integers
    half = y * 0.5
    y_odd = y_int & (tl.floor(half) != half)
    x_neg = x.to(tl.int32, bitcast=True) < 0  # sign bit: -0.0 counts
    r = tl.where(x_neg & y_odd, -mag, mag)
    r = tl.where((x < 0) & (x > float("-inf")) & (y == y) & (tl.abs(y) < float("inf")) & (~y_int),
                 float("nan"), r)
    one = (y == 0.0) | (x == 1.0) | ((x == -1.0) & (tl.abs(y) == float("inf")))
    return tl.where(one, 1.0, r)


@triton.jit
def _pow_kernel(x_ptr, y_ptr, out_ptr, n, scalar, d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                FLAT: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    # MODE: -1 tensor exponent; 0 general Python-number exponent; 1..7 torch's special scalar paths
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:
        xo = offs
        yo = offs
    else:
        i3 = offs % d3
        rest = offs // d3
        i2 = rest % d2
        rest = rest // d2
        i1 = rest % d1
        i0 = rest // d1
        xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
        yo = i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3
    x = tl.load(x_ptr + xo, mask=mask, other=1.0).to(tl.float32)
    if MODE == -1:
        r = _powf(x, tl.load(y_ptr + yo, mask=mask, other=1.0).to(tl.float32))
    elif MODE == 0:
        r = _powf(x, tl.zeros_like(x) + scalar)
    elif MODE == 1:
        r = x * x
    elif MODE == 2:
        r = x * x * x
    elif MODE == 3:
        r = tl.sqrt_rn(x)
    elif MODE == 4:
        r = 1.0 / tl.sqrt_rn(x)
    elif MODE == 5:
        r = 1.0 / x
    elif MODE == 6:
        r = 1.0 / (x * x)
    else:
        r = x
    tl.store(out_ptr + offs, r, mask=mask)


def _padded(t: torch.Tensor, shape) -> list[int]:
    return [0] * (MAX_DIMS - len(shape)) + list(t.expand(shape).stride())


def pow(input: torch.Tensor, exponent) -> torch.Tensor:
    y_scalar = not isinstance(exponent, torch.Tensor)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, exponent.shape)
    out = torch.empty(shape, dtype=torch.result_type(input, exponent), device=input.device)
    n = out.numel()
    if n == 0:
        return out
    x, y = input, (input if y_scalar else exponent)
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = x.expand(shape).contiguous()
        y = y if y_scalar else y.expand(shape).contiguous()
    flat = x.shape == shape and x.is_contiguous() and (y_scalar or (y.shape == shape and y.is_contiguous()))
    dims = [1] * (MAX_DIMS - len(shape)) + list(shape)
    xs = [0] * MAX_DIMS if flat else _padded(x, shape)
    ys = [0] * MAX_DIMS if (flat or y_scalar) else _padded(y, shape)
    mode = SPECIAL.get(float(exponent), 0) if y_scalar else -1
    scalar = float(exponent) if y_scalar else 0.0
    BLOCK = 1024 if n < (1 << 20) else 4096
    _pow_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, scalar, dims[1], dims[2], dims[3], *xs, *ys,
                                         FLAT=flat, MODE=mode, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return out
