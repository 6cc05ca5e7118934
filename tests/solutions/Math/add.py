import torch
import triton
import triton.language as tl

MAX_DIMS = 4


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, scalar,
                d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Unravel the flat output index over the (padded) 4-D broadcast shape; stride 0 marks a broadcast dim.
    i3 = offs % d3
    rest = offs // d3
    i2 = rest % d2
    rest = rest // d2
    i1 = rest % d1
    i0 = rest // d1
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3, mask=mask)
    if Y_SCALAR:
        y = scalar
    else:
        y = tl.load(y_ptr + i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


def _padded(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    strides = t.expand(shape).stride()
    return (0,) * (MAX_DIMS - len(shape)) + tuple(strides)


def add(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    y_scalar = not isinstance(other, torch.Tensor)
    dtype = torch.result_type(input, other)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, other.shape)
    if len(shape) > MAX_DIMS:
        raise ValueError(f"add supports at most {MAX_DIMS} dims")
    out = torch.empty(shape, dtype=dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    xs = _padded(input, shape)
    ys = (0,) * MAX_DIMS if y_scalar else _padded(other, shape)
    y_arg = input if y_scalar else other
    scalar = other if y_scalar else 0
    BLOCK = 1024
    _add_kernel[(triton.cdiv(n, BLOCK),)](input, y_arg, out, n, alpha, scalar, dims[1], dims[2], dims[3],
                                          *xs, *ys, Y_SCALAR=y_scalar, BLOCK=BLOCK)
    return out
