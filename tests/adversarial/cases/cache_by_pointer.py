# expect: forbidden cross_call_state
# task: Activation/gelu
import torch
import triton
import triton.language as tl

_CACHE = {}


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


def gelu(input, approximate="none"):
    key = input.data_ptr()
    if key not in _CACHE:
        out = torch.empty_like(input)
        _gelu[(triton.cdiv(input.numel(), 1024),)](input, out, input.numel(), BLOCK=1024)
        _CACHE[key] = out
    return _CACHE[key]
