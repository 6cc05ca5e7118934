# expect: incorrect out_of_bounds_write
# task: Activation/relu
# An off-by-one store mask: every value is right, and one element past the output's end is written too.
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x), mask=offs <= n)


def relu(input):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _relu_kernel[(triton.cdiv(n + 1, 1024),)](x, y, n, BLOCK=1024)
    return y
