import torch
import triton
import triton.language as tl

MAX_DIMS = 4


@triton.jit
def _sub_kernel(x_ptr, y_ptr, out_ptr, n, alpha, scalar, d1, d2, d3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3,
                FLAT: tl.constexpr, Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:
        xo = offs
        yo = offs
    else:
        # unravel the flat output index over the padded 4-D broadcast shape; stride 0 marks a broadcast dim
        i3 = offs % d3
        rest = offs // d3
        i2 = rest % d2
        rest = rest // d2
        i1 = rest % d1
        i0 = rest // d1
        xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
        yo = i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3
    ty = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + xo, mask=mask).to(ty)
    if Y_SCALAR:
        y = scalar
    else:
        y = tl.load(y_ptr + yo, mask=mask).to(ty)
    tl.store(out_ptr + offs, (x - alpha * y).to(ty), mask=mask)  # int32 wraps modulo 2^32


def _padded(t: torch.Tensor, shape) -> list[int]:
    return [0] * (MAX_DIMS - len(shape)) + list(t.expand(shape).stride())


def sub(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    y_scalar = not isinstance(other, torch.Tensor)
    dtype = torch.result_type(input, other)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    x, y = input, (input if y_scalar else other)
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = x.expand(shape).contiguous()
        y = y if y_scalar else y.expand(shape).contiguous()
    flat = x.shape == shape and x.is_contiguous() and (y_scalar or (y.shape == shape and y.is_contiguous()))
    dims = [1] * (MAX_DIMS - len(shape)) + list(shape)
    xs = [0] * MAX_DIMS if flat else _padded(x, shape)
    ys = [0] * MAX_DIMS if (flat or y_scalar) else _padded(y, shape)
    if dtype.is_floating_point:
        alpha, scalar = float(alpha), float(other) if y_scalar else 0.0
    else:
        scalar = int(other) if y_scalar else 0
    BLOCK = 1024 if n < (1 << 20) else 4096
    _sub_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, alpha, scalar, dims[1], dims[2], dims[3], *xs, *ys,
                                         FLAT=flat, Y_SCALAR=y_scalar, BLOCK=BLOCK,
                                         num_warps=4 if BLOCK == 1024 else 8)
    return out
