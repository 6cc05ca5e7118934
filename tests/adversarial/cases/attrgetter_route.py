# expect: forbidden import_not_allowed
# task: Activation/relu
# operator.attrgetter turns a string into an attribute access: a string-to-code route.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


from operator import attrgetter


def relu(input):
    _touch[(1,)](input)
    return attrgetter('clamp_min')(input)(0)
