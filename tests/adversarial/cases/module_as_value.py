# expect: forbidden module_value
# task: Activation/tanh
# Holding a module object lets later code reach anything on it; modules may only head a checked chain.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def tanh(input):
    t = torch
    _touch[(1,)](input)
    return t.tanh(input)
