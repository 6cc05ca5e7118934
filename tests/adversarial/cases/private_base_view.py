# expect: forbidden private_attribute
# task: Activation/relu
# Private tensor attributes reach the storage and autograd internals.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    return input._base if input._base is not None else input
