import torch
import triton
import triton.language as tl


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    # rsqrt(±0) = ±inf (1/x keeps the sign of zero); x < 0 and NaN give NaN; rsqrt(inf) = 0
    y = tl.where(x == 0.0, 1.0 / x, tl.rsqrt(x))
    tl.store(y_ptr + offs, y, mask=mask)


def rsqrt(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _rsqrt_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
