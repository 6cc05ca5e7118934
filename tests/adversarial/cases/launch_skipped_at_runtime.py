# expect: no_triton_kernel no_launch
# task: Activation/gelu
# A launch site exists but never runs; the values come from host-side torch views only.
import torch
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    if input.numel() < 0:
        _decoy[(1,)](input)
    return torch.zeros_like(input)
