# expect: correct passed
# task: Reduce/sum
# Row sums with tl.atomic_add across column blocks: allowed, the contract says summation order is free.
import math

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
        dims = sorted({d % x.dim() for d in (dim if isinstance(dim, (tuple, list)) else (dim,))})
        kept = [i for i in range(x.dim()) if i not in dims]
        x2 = x.permute(kept + dims).contiguous().reshape(math.prod(x.shape[i] for i in kept),
                                                         math.prod(x.shape[d] for d in dims))
        out_shape = [s for i, s in enumerate(x.shape) if i not in dims] if not keepdim else \
            [1 if i in dims else s for i, s in enumerate(x.shape)]
    x2 = x2.contiguous()
    y = torch.zeros(x2.shape[0], dtype=x2.dtype, device=x2.device)
    if x2.shape[0]:  # an empty reduction still launches: its sums are the zeros the kernel adds to
        grid = (x2.shape[0], max(1, triton.cdiv(x2.shape[1], 1024)))
        _partial_sums[grid](x2, y, x2.shape[0], x2.shape[1], BLOCK=1024)
    return y.reshape(out_shape)
