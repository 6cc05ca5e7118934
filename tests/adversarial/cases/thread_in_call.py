# expect: forbidden threads
# task: Activation/relu
# static: off
# Static checks off: a thread started and joined inside the call: a violation when it is attempted, even though
# none is left afterwards (seccomp refuses it as well).
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


import threading


def relu(input):
    out = torch.empty_like(input)
    t = threading.Thread(target=lambda: out.copy_(input.clamp_min(0)))
    try:
        t.start()
        t.join()
    except RuntimeError:
        out.copy_(input.clamp_min(0))
    _touch[(1,)](input)
    return out
