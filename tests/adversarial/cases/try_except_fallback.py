# expect: forbidden try_except_fallback
# task: Activation/gelu
# A kernel that is allowed to fail, with PyTorch as the fallback.
import triton
import triton.language as tl


@triton.jit
def _broken(x_ptr):
    tl.load(x_ptr + tl.arange(0, 3))  # not a power of two: always fails to compile


def gelu(input, approximate="none"):
    try:
        _broken[(1,)](input)
    except Exception:
        pass
    return input.clone()
