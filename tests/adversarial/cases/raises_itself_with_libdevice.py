# expect: runtime_error exception
# expect-cpu: runtime_error exception
# task: Activation/gelu
# Imports libdevice (an interpreter limit) but the error comes from its own code: a runtime error, not
# unsupported_on_cpu.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


from triton.language.extra import libdevice  # noqa: F401


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    raise ValueError('no kernel for this input')
