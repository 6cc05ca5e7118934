# expect: forbidden import_not_allowed
# task: Activation/gelu
# torch.nn.functional is not an allowed import: the allowlist names modules, not a blacklist of bad ones.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    import torch.nn.functional as F
    _touch[(1,)](input)
    return F.gelu(input, approximate=approximate)
