# expect: correct passed
# task: Reduce/sum
# Row sums with tl.atomic_add across column blocks: allowed, the contract says summation order is free.
import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sums(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.atomic_add(y_ptr + row, tl.sum(x, axis=0))


def sum(input, dim=None, keepdim=False, *, dtype=None):
    x = input if dtype is None else input.to(dtype)
    if dim is None:
        x2 = x.reshape(1, -1)
        out_shape = [1] * x.dim() if keepdim else []
    else:
        d = dim % x.dim()
        x2 = x.movedim(d, -1).contiguous().reshape(-1, x.shape[d])
        out_shape = [s for i, s in enumerate(x.shape) if i != d] if not keepdim else \
            [1 if i == d else s for i, s in enumerate(x.shape)]
    x2 = x2.contiguous()
    y = torch.zeros(x2.shape[0], dtype=x2.dtype, device=x2.device)
    _partial_sums[(x2.shape[0], triton.cdiv(x2.shape[1], 1024))](x2, y, x2.shape[0], x2.shape[1], BLOCK=1024)
    return y.reshape(out_shape)
