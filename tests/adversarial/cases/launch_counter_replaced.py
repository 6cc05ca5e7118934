# expect: forbidden observer_disabled
# task: Activation/relu
# static: off
# Static checks off: replacing JITFunction.run (where launches are counted) with a function that launches
# nothing; the harness sees its wrapper gone.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


from triton.runtime import jit

jit.JITFunction.run = lambda self, *a, **k: None


def relu(input):
    _touch[(1,)](input)
    return input.clamp_min(0)
