# expect: forbidden computed_attribute
# task: Activation/gelu
# The name of the torch function is computed at run time, so no static rule could match it by name.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    name = 'ge' + 'lu'
    return getattr(torch.special, name)(input)
