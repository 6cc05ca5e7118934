import torch
import triton
import triton.language as tl


@triton.jit
def _add_gelu_kernel(x_ptr, y_ptr, out_ptr, n, size1, size2, size3,
                     xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3, y_scalar, alpha,
                     Y_TENSOR: tl.constexpr, TANH: tl.constexpr, FLAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:  # every operand contiguous with the output's shape: no index arithmetic
        x = tl.load(x_ptr + offs, mask=mask)
        if Y_TENSOR:
            y = tl.load(y_ptr + offs, mask=mask)
        else:
            y = y_scalar
    else:
        # Unravel the flat output index over a 4-D broadcast shape; operands are addressed through their strides.
        i3 = offs % size3
        rest = offs // size3
        i2 = rest % size2
        rest = rest // size2
        i1 = rest % size1
        i0 = rest // size1
        x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3, mask=mask)
        if Y_TENSOR:
            y = tl.load(y_ptr + i0 * ys0 + i1 * ys1 + i2 * ys2 + i3 * ys3, mask=mask)
        else:
            y = y_scalar
    z = x + alpha * y
    if TANH:
        inner = 0.7978845608028654 * (z + 0.044715 * z * z * z)
        t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        g = 0.5 * z * (1.0 + t)
    else:
        g = 0.5 * z * (1.0 + tl.erf(z * 0.7071067811865476))
    tl.store(out_ptr + offs, g, mask=mask)


def _strides4(t: torch.Tensor, shape: torch.Size) -> list[int]:
    view = t.broadcast_to(shape)
    return [0] * (4 - len(shape)) + list(view.stride())


def fused_add_gelu(input: torch.Tensor, other, alpha=1, approximate: str = "none") -> torch.Tensor:
    y_tensor = isinstance(other, torch.Tensor)
    shape = torch.broadcast_shapes(input.shape, other.shape) if y_tensor else input.shape
    out = torch.empty(shape, dtype=torch.float32, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    if len(shape) > 4:  # rare: materialize the broadcast, then the flat path over 1-D copies
        input = input.expand(shape).contiguous().view(n)
        other = other.expand(shape).contiguous().view(n) if y_tensor else other
        shape = input.shape
    sizes = [1] * (4 - len(shape)) + list(shape)
    xs = _strides4(input, shape)
    ys = _strides4(other, shape) if y_tensor else [0, 0, 0, 0]
    flat = input.shape == shape and input.is_contiguous() and (
        not y_tensor or (other.shape == shape and other.is_contiguous()))
    BLOCK = 1024
    _add_gelu_kernel[(triton.cdiv(n, BLOCK),)](
        input, other if y_tensor else input, out, n, sizes[1], sizes[2], sizes[3], *xs, *ys,
        0.0 if y_tensor else float(other), float(alpha),
        Y_TENSOR=y_tensor, TANH=approximate == "tanh", FLAT=flat, BLOCK=BLOCK, num_warps=4)
    return out
