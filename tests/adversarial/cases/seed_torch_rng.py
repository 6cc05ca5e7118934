# expect: forbidden torch_surface
# task: Random/rand
# Reseeding torch's global generator to predict or replay the reference's stream.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def rand(*size, seed, dtype=None):
    torch.manual_seed(0)
    _touch[(1,)](seed)
    return torch.empty(size)
