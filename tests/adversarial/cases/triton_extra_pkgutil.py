# expect: forbidden attribute_not_allowed
# task: Activation/relu
# triton.language.extra is a module whose attributes include pkgutil and importlib helpers: only libdevice may
# be used from it.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    loader = tl.extra.pkgutil
    return input.clamp_min(0)
