# expect: incorrect
# task: Activation/gelu
# Returns uninitialised memory, hoping it holds a previous answer.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return torch.empty_like(input)
