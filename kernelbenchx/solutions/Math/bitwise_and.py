import torch
import triton
import triton.language as tl

MAX_DIMS = 4
BLOCK = 2048


@triton.jit
def _and_flat_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) & tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _and_strided_kernel(x_ptr, y_ptr, out_ptr, n, d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                        BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    i3 = offs % d3
    rest = offs // d3
    i2 = rest % d2
    rest = rest // d2
    i1 = rest % d1
    i0 = rest // d1
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3, mask=mask)
    y = tl.load(y_ptr + i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3, mask=mask)
    tl.store(out_ptr + offs, x & y, mask=mask)


def _padded_strides(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    return (0,) * (MAX_DIMS - len(shape)) + tuple(t.expand(shape).stride())


def bitwise_and(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    shape = torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    # bool tensors are ANDed as their bytes (0 or 1), which is the logical AND
    x, y, o = input, other, out
    if input.dtype == torch.bool:
        x, y, o = input.view(torch.uint8), other.view(torch.uint8), out.view(torch.uint8)
    grid = (triton.cdiv(n, BLOCK),)
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and AND the flat copies
        x, y = x.expand(shape).contiguous(), y.expand(shape).contiguous()
    if x.shape == shape and y.shape == shape and x.is_contiguous() and y.is_contiguous():
        _and_flat_kernel[grid](x, y, o, n, BLOCK=BLOCK, num_warps=4)
        return out
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    _and_strided_kernel[grid](x, y, o, n, dims[1], dims[2], dims[3], *_padded_strides(x, shape),
                              *_padded_strides(y, shape), BLOCK=BLOCK, num_warps=4)
    return out
