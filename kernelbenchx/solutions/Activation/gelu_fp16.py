import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _gelu_fp16_kernel(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if TANH:
        # x³ of a large float16 value overflows float16 but not float32; tanh(z) = 2·sigmoid(2z) − 1 is finite
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


def gelu_fp16(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        _gelu_fp16_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, TANH=approximate == "tanh", BLOCK=BLOCK,
                                                    num_warps=4)
    return y
