# expect: correct passed
# task: Activation/relu
# A grid callable that only reads launch metadata: observed, and harmless.
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
    out = torch.empty_like(x)
    n = x.numel()
    _relu[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](x, out, n, BLOCK=256)
    return out
