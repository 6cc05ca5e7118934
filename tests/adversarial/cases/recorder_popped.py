# expect: forbidden observer_disabled
# task: Activation/gelu
# static: off
# Static checks off: the candidate pops the operator recorder off the dispatch stack and computes in PyTorch;
# the harness sees its recorder gone when the call returns.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    torch._C._pop_torch_dispatch_stack(None)
    _touch[(1,)](input)
    return torch.nn.functional.gelu(input, approximate=approximate)
