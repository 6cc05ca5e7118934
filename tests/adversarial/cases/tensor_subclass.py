# expect: forbidden tensor_subclass
# task: Activation/gelu
import torch
import triton
import triton.language as tl


class Lazy(torch.Tensor):
    pass


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return input.clone().as_subclass(Lazy)
