# expect: forbidden os_access
# task: Activation/gelu
import os

import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


SEED = os.environ.get("KBX_SEED")


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return input.clone()
