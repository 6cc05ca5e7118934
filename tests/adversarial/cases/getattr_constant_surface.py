# expect: forbidden torch_surface
# task: Activation/tanh
# getattr with a constant name is checked like the attribute itself: torch.tanh is outside the surface.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def tanh(input):
    _touch[(1,)](input)
    return getattr(torch, 'tanh')(input)
