# expect: forbidden import_not_allowed
# task: Activation/relu
# A star import brings every torch function in under bare names.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


from torch import *  # noqa


def relu(input):
    _touch[(1,)](input)
    return input
