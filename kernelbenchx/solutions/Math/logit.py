import torch
import triton
import triton.language as tl


@triton.jit
def _logit_kernel(x_ptr, y_ptr, n, eps, HAS_EPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    z = tl.load(x_ptr + offs, mask=mask, other=0.5)
    if HAS_EPS:
        lo = eps
        hi = 1.0 - eps  # rounded to float32, as torch does
        # comparisons are false for NaN, so NaN passes through unclamped
        z = tl.where(z < lo, lo, tl.where(z > hi, hi, z))
    # z/(1-z): 0 → -inf, 1 → +inf, outside [0, 1] a negative ratio → NaN
    tl.store(y_ptr + offs, tl.log(z / (1.0 - z)), mask=mask)


def logit(input: torch.Tensor, eps: float | None = None) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _logit_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, 0.0 if eps is None else float(eps), HAS_EPS=eps is not None,
                                           BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
