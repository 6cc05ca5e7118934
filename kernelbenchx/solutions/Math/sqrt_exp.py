import torch
import triton
import triton.language as tl


@triton.jit
def _exp_accurate(x):
    # e^x within a few ulp over the whole float32 range: Cody-Waite reduction x = k·ln2 + r, |r| ≤ ln2/2, so the
    # hardware exp2 only sees a small argument (tl.exp alone scales its argument's rounding error by |x|).
    xc = tl.minimum(tl.maximum(x, -104.0), 89.0)
    k = tl.floor(xc * 1.4426950408889634 + 0.5)
    r = (xc - k * 0.693145751953125) - k * 1.4286068203094173e-06
    p = tl.exp2(r * 1.4426950408889634)
    ki = k.to(tl.int32)
    k1 = ki // 2
    k2 = ki - k1
    s1 = ((k1 + 127) << 23).to(tl.float32, bitcast=True)  # exact powers of two, |k1|, |k2| ≤ 75
    s2 = ((k2 + 127) << 23).to(tl.float32, bitcast=True)
    return tl.where(x != x, x, (p * s1) * s2)


@triton.jit
def _sqrt_exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.sqrt_rn(x)  # correctly rounded, like torch.sqrt: exp amplifies an error in s by the result
    tl.store(y_ptr + offs, _exp_accurate(s), mask=mask)  # NaN for x < 0, +inf past x ≈ 7885


def sqrt_exp(input: torch.Tensor) -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    BLOCK = 1024 if n < (1 << 20) else 4096
    _sqrt_exp_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4 if BLOCK == 1024 else 8)
    return y
