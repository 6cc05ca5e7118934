# expect: forbidden threads
# task: Activation/gelu
import threading

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    out = torch.empty_like(input)
    _touch[(1,)](input)
    threading.Thread(target=lambda: out.copy_(F.gelu(input))).start()
    return out
