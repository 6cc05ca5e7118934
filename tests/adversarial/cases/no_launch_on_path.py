# expect: no_triton_kernel kernel_not_launched
# task: Activation/gelu
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    return F.gelu(input, approximate=approximate)
