# expect: incorrect stage1
# task: Reduce/sum
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    shape = [] if dim is None else [s for i, s in enumerate(input.shape) if i != dim % input.dim()]
    out = torch.empty(shape, dtype=dtype or input.dtype, device=input.device)
    _zero[(max(1, triton.cdiv(out.numel(), 128)),)](out, out.numel(), BLOCK=128)
    return out
