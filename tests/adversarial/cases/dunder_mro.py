# expect: forbidden introspection
# task: Activation/relu
# Walking the class hierarchy of a tensor to reach torch internals.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    base = type(input).__mro__[1]
    return base.clamp_min(input, 0)
