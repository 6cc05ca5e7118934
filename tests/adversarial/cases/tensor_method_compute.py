# expect: forbidden attribute_not_allowed
# task: Activation/sigmoid
# A tensor compute method on the host (not in the host attribute allowlist).
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def sigmoid(input):
    _touch[(1,)](input)
    return input.sigmoid()
