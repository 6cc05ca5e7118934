# expect: forbidden os_access
# task: Activation/gelu
import os

import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    for fd in range(3, 64):
        try:
            os.write(fd, b"\x10\x00\x00\x00\x00\x00\x00\x00" + b"{}" * 8)
        except OSError:
            pass
    _touch[(1,)](input)
    return input.clone()
