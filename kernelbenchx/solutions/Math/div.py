import torch
import triton
import triton.language as tl

MAX_DIMS = 4
BLOCK = 1024


@triton.jit
def _divide(x, y, MODE: tl.constexpr):
    q = tl.div_rn(x, y)  # IEEE quotient (x/0 = ±inf, 0/0 = NaN)
    if MODE == 1:  # trunc: the rounded quotient toward zero
        q = tl.where(q < 0.0, tl.ceil(q), tl.floor(q))
    elif MODE == 2:  # floor: torch's floor division of the exact quotient
        # m = fmod(x, y), exact: in float64 trunc(x/y) is right while |x/y| < 2^29 and then t·y and x − t·y are
        # exact; beyond, m is far below an ulp of x and does not change (x − m)/y in float32.
        xd = x.to(tl.float64)
        yd = y.to(tl.float64)
        qd = xd / yd
        td = tl.where(qd < 0.0, tl.ceil(qd), tl.floor(qd))
        md = tl.where(tl.abs(yd) == float("inf"), xd, xd - td * yd)  # fmod(x, ±inf) = x
        m = md.to(tl.float32)
        d = tl.div_rn(x - m, y)
        d = tl.where((m != 0.0) & ((y < 0.0) != (m < 0.0)), d - 1.0, d)
        f = tl.floor(d)
        f = tl.where(d - f > 0.5, f + 1.0, f)
        f = tl.where(d == 0.0, q * 0.0, f)  # a zero quotient takes the sign of x/y
        q = tl.where(y == 0.0, q, f)  # division by zero: the IEEE x/y
    return q


@triton.jit
def _div_flat_kernel(x_ptr, y_ptr, out_ptr, n, scalar, Y_SCALAR: tl.constexpr, MODE: tl.constexpr,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if Y_SCALAR:
        y = tl.zeros_like(x) + scalar
    else:
        y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, _divide(x, y, MODE), mask=mask)


@triton.jit
def _div_strided_kernel(x_ptr, y_ptr, out_ptr, n, scalar, d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                        Y_SCALAR: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % d3
    rest = offs // d3
    i2 = rest % d2
    rest = rest // d2
    i1 = rest % d1
    i0 = rest // d1
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3, mask=mask, other=1.0)
    if Y_SCALAR:
        y = tl.zeros_like(x) + scalar
    else:
        y = tl.load(y_ptr + i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3, mask=mask, other=1.0)
    tl.store(out_ptr + offs, _divide(x, y, MODE), mask=mask)


def _padded_strides(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    return (0,) * (MAX_DIMS - len(shape)) + tuple(t.expand(shape).stride())


def div(input: torch.Tensor, other, *, rounding_mode=None) -> torch.Tensor:
    mode = {None: 0, "trunc": 1, "floor": 2}[rounding_mode]
    y_scalar = not isinstance(other, torch.Tensor)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.float32, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    y_arg, scalar = (input, float(other)) if y_scalar else (other, 0.0)
    grid = (triton.cdiv(n, BLOCK),)
    if input.shape == shape and input.is_contiguous() and (
            y_scalar or (other.shape == shape and other.is_contiguous())):
        _div_flat_kernel[grid](input, y_arg, out, n, scalar, Y_SCALAR=y_scalar, MODE=mode, BLOCK=BLOCK, num_warps=4)
        return out
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = input.expand(shape).contiguous()
        y = y_arg if y_scalar else other.expand(shape).contiguous()
        _div_flat_kernel[grid](x, y, out, n, scalar, Y_SCALAR=y_scalar, MODE=mode, BLOCK=BLOCK, num_warps=4)
        return out
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    ys = (0,) * MAX_DIMS if y_scalar else _padded_strides(other, shape)
    _div_strided_kernel[grid](input, y_arg, out, n, scalar, dims[1], dims[2], dims[3],
                              *_padded_strides(input, shape), *ys, Y_SCALAR=y_scalar, MODE=mode, BLOCK=BLOCK,
                              num_warps=4)
    return out
