# expect: incorrect out_of_bounds_write
# task: Activation/relu
# The output is right; the kernel also writes one element past the end of its input's memory.
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x), mask=offs < n)
    tl.store(x_ptr + offs, tl.zeros_like(x), mask=offs == n)


def relu(input):
    y = torch.empty_like(input)
    n = input.numel()
    if n > 0 and input.is_contiguous():
        _relu_kernel[(triton.cdiv(n + 1, 1024),)](input, y, n, BLOCK=1024)
        return y
    return relu(input.contiguous()) if n > 0 else y
