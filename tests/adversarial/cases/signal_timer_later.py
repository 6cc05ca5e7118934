# expect: forbidden sandbox_violation
# task: Activation/gelu
# static: off
# Static checks off (they refuse `import signal`): a SIGALRM handler armed by an interval timer runs candidate code
# later, between the harness's requests, where no guard holds the GPU for it (during another process's timing or
# this candidate's own baseline's). The call computes the right answer and leaves the timer and handler set.
import signal

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def _later(signum, frame):
    torch.empty(1 << 20).fill_(1.0)  # stands for GPU work during someone else's timing


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    signal.signal(signal.SIGALRM, _later)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    return F.gelu(input, approximate=approximate)
