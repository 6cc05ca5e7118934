# expect: correct passed
# task: Activation/relu
# functools.partial binds launch arguments; allowed by the import allowlist.
import torch
import triton
import triton.language as tl


@triton.jit
def _relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x < 0, 0.0, x), mask=offs < n)


from functools import partial


def relu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    launch = partial(_relu[(triton.cdiv(x.numel(), 512),)], BLOCK=512)
    launch(x, out, x.numel())
    return out
