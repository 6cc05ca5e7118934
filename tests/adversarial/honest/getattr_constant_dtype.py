# expect: correct passed
# task: Activation/relu
# getattr with a constant, allowed name is an ordinary attribute access.
import torch
import triton
import triton.language as tl


@triton.jit
def _relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x < 0, 0.0, x), mask=offs < n)


def relu(input):
    x = input.contiguous()
    out = torch.empty(x.shape, dtype=getattr(torch, 'float32'), device=x.device)
    _relu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
