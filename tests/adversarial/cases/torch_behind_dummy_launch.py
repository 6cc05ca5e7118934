# expect: forbidden torch_compute
# task: Activation/gelu
# static: off
# Static checks off (they refuse the import): a token Triton launch, then PyTorch does the work; the
# operator recorder sees it.
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return F.gelu(input, approximate=approximate)
