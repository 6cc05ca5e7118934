# expect: forbidden sandbox_violation
# task: Activation/relu
# static: off
# Static checks off: loading libc through ctypes to ptrace the parent.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


import ctypes
import os


def relu(input):
    libc = ctypes.CDLL(None)
    libc.ptrace(16, os.getppid(), 0, 0)
    _touch[(1,)](input)
    return input
