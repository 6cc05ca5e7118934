# expect: forbidden streams
# task: Activation/gelu
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        return input.clone()
