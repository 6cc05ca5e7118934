# expect: forbidden input_mutation
# task: Activation/gelu
# Computes correctly, but in the caller's input buffer, and returns a copy.
import triton
import triton.language as tl


@triton.jit
def _gelu_inplace(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


def gelu(input, approximate="none"):
    _gelu_inplace[(triton.cdiv(input.numel(), 1024),)](input, input.numel(), BLOCK=1024)
    return input.clone()
