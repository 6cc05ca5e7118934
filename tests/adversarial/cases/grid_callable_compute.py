# expect: forbidden torch_compute
# task: Activation/relu
# static: off
# Static checks off: the work hides in the grid callable, which Triton calls inside its launch; the harness runs
# grid callables under observation.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    out = torch.empty_like(input)

    def grid(meta):
        torch.clamp_min(input, 0, out=out)
        return (1,)

    _touch[grid](input)
    return out
