# expect: forbidden torch_compile
# task: Activation/gelu
import torch
import triton
import triton.language as tl

_fast = torch.compile(torch.clone)


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return _fast(input)
