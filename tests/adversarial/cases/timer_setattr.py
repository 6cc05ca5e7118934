# expect: forbidden monkeypatch
# task: Activation/gelu
import torch
import triton
import triton.language as tl

setattr(torch.cuda.Event, "elapsed_time", lambda self, other: 1e-6)


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return input.clone()
