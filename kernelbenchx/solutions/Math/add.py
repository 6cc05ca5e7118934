import torch
import triton
import triton.language as tl

MAX_DIMS = 4
BLOCK = 1024


@triton.jit
def _add_flat_kernel(x_ptr, y_ptr, out_ptr, n, alpha, scalar, Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if Y_SCALAR:
        y = scalar
    else:
        y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


@triton.jit
def _add_strided_kernel(x_ptr, y_ptr, out_ptr, n, alpha, scalar,
                        d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                        Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
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


def _padded_strides(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    return (0,) * (MAX_DIMS - len(shape)) + tuple(t.expand(shape).stride())


def add(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    y_scalar = not isinstance(other, torch.Tensor)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.result_type(input, other), device=input.device)
    n = out.numel()
    if n == 0:
        return out
    y_arg, scalar = (input, other) if y_scalar else (other, 0)
    grid = (triton.cdiv(n, BLOCK),)
    flat = input.shape == shape and input.is_contiguous() and (
        y_scalar or (other.shape == shape and other.is_contiguous()))
    if flat:
        _add_flat_kernel[grid](input, y_arg, out, n, alpha, scalar, Y_SCALAR=y_scalar, BLOCK=BLOCK, num_warps=4)
        return out
    if len(shape) > MAX_DIMS:
        raise ValueError(f"add supports at most {MAX_DIMS} dims")
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    ys = (0,) * MAX_DIMS if y_scalar else _padded_strides(other, shape)
    _add_strided_kernel[grid](input, y_arg, out, n, alpha, scalar, dims[1], dims[2], dims[3],
                              *_padded_strides(input, shape), *ys, Y_SCALAR=y_scalar, BLOCK=BLOCK, num_warps=4)
    return out
