import torch
import triton
import triton.language as tl


@triton.jit
def _reciprocal_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # integer inputs are promoted to float32 (round to nearest) before dividing, as torch does
    x = tl.load(x_ptr + offs, mask=mask, other=1).to(tl.float32)
    tl.store(y_ptr + offs, 1.0 / x, mask=mask)  # 1/±0 = ±inf, 1/±inf = ±0


def reciprocal(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    out_dtype = x.dtype if x.is_floating_point() else torch.float32
    y = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _reciprocal_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
