# expect: correct passed
# task: Math/add
# Reads both inputs through their strides (2-D views, any layout, broadcast or expanded) without copying: the
# strided-view cases reach the kernel as views and an honest strided kernel passes them.
import torch
import triton
import triton.language as tl


@triton.jit
def _add2d(x_ptr, y_ptr, o_ptr, R, C, sxr, sxc, syr, syc, alpha, BLOCK: tl.constexpr):
    r = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = cols < C
    x = tl.load(x_ptr + r * sxr + cols * sxc, mask=m)
    y = tl.load(y_ptr + r * syr + cols * syc, mask=m)
    tl.store(o_ptr + r * C + cols, x + alpha * y, mask=m)


def add(input, other, *, alpha=1):
    dtype = torch.result_type(input, other)
    if not isinstance(other, torch.Tensor):
        other = torch.as_tensor(other, dtype=dtype, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    x = input.to(dtype).expand(shape)
    y = other.to(dtype).expand(shape)
    if len(shape) != 2:
        x = x.reshape(-1, shape[-1] if len(shape) else 1)
        y = y.reshape(-1, shape[-1] if len(shape) else 1)
    R, C = (x.shape[0], x.shape[1]) if x.dim() == 2 else (1, 1)
    out = torch.empty((R, C), dtype=dtype, device=x.device)
    if out.numel():
        _add2d[(triton.cdiv(C, 256), R)](x.to(dtype), y.to(dtype), out, R, C, x.stride(0), x.stride(1),
                                         y.stride(0), y.stride(1), alpha, BLOCK=256)
    return out.reshape(shape)
