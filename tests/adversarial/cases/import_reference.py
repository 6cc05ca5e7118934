# expect: forbidden imports_reference
# task: Activation/gelu
from kernelbenchx.dataset.tasks.Activation.gelu import reference
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    return reference(input, approximate)
