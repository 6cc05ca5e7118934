# expect: incorrect stage1
# task: Activation/gelu
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float64)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


def gelu(input, approximate="none"):
    out = torch.empty(input.shape, dtype=torch.float64, device=input.device)
    _gelu[(triton.cdiv(input.numel(), 1024),)](input, out, input.numel(), BLOCK=1024)
    return out
