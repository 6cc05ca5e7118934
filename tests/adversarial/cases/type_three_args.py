# expect: forbidden dynamic_code
# task: Activation/relu
# type() with three arguments builds a class (with any methods) from data.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    Box = type('Box', (), {'f': lambda self, x: x})
    return Box().f(input)
