# expect: runtime_error exception
# task: Activation/gelu
# device: gpu
# An out-of-bounds store far outside any allocation: an illegal memory access that poisons the context.
import torch
import triton
import triton.language as tl


@triton.jit
def _wild(y_ptr):
    tl.store(y_ptr + (1 << 40), 1.0)


def gelu(input, approximate="none"):
    out = torch.empty_like(input)
    _wild[(1,)](out)
    return out
