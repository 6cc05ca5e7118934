import torch
import triton
import triton.language as tl


@triton.jit
def _signbit_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    bits = x.to(tl.int32, bitcast=True)  # sign bit set <=> negative as a two's-complement int (-0.0, -NaN too)
    tl.store(y_ptr + offs, bits < 0, mask=mask)


def signbit(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=torch.bool, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _signbit_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
