# expect: forbidden sandbox_violation
# task: Activation/relu
# static: off
# Static checks off: reading the parent's command line (a --seed) and environment through /proc; Landlock and
# the PID namespace leave only the candidate's own /proc entry.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


import os


def relu(input):
    for pid in ('1', str(os.getppid())):
        open(f'/proc/{pid}/cmdline').read()
    _touch[(1,)](input)
    return input.clamp_min(0)
