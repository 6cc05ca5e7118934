import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


def gelu(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, TANH=approximate == "tanh", BLOCK=BLOCK)
    return y.view_as(input)
