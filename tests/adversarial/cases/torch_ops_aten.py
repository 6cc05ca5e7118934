# expect: forbidden native_extension
# task: Activation/gelu
# torch.ops reaches every ATen operator by name.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return torch.ops.aten.gelu(input, approximate=approximate)
