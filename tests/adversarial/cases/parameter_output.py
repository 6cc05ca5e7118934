# expect: forbidden bad_output
# task: Activation/gelu
# static: off
# Static checks off (they refuse torch.nn): a tensor subclass smuggled in without a class statement.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


def gelu(input, approximate="none"):
    x = input.contiguous()
    out = torch.empty_like(x)
    _gelu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return torch.nn.Parameter(out, requires_grad=False)
