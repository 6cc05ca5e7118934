# expect: correct passed
# expect-cpu: unsupported_on_cpu interpreter_limit
# task: Activation/gelu
# Uses libdevice's erf: fine on the GPU; the CPU interpreter raises inside Triton, so there it is
# unsupported_on_cpu (neither pass nor failure).
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gelu(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float32)
    if TANH:
        y = 0.5 * x * (1 + libdevice.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    else:
        y = 0.5 * x * (1 + libdevice.erf(x * 0.7071067811865476))
    y = tl.where(x == float("inf"), x, y)
    tl.store(y_ptr + offs, y, mask=offs < n)


def gelu(input, approximate="none"):
    x = input.contiguous()
    out = torch.empty_like(x)
    _gelu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), TANH=approximate == "tanh", BLOCK=1024)
    return out
