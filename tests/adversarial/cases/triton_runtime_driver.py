# expect: forbidden introspection
# task: Activation/relu
# Triton's runtime exposes the driver and the launcher: the harness's launch counter lives there.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    driver = triton.runtime.driver.active
    return input.clamp_min(0)
