# expect: correct passed
# task: Activation/gelu
# Two kernels per call, a temporary, views and reshapes: all legitimate.
import torch
import triton
import triton.language as tl


@triton.jit
def _cdf(x_ptr, t_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(t_ptr + offs, 0.5 * (1 + tl.erf(x * 0.7071067811865476)), mask=offs < n)


@triton.jit
def _tanh_cdf(x_ptr, t_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tl.store(t_ptr + offs, tl.sigmoid(2.0 * inner), mask=offs < n)


@triton.jit
def _mul(x_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    t = tl.load(t_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * t, mask=offs < n)


def gelu(input, approximate="none"):
    flat = input.contiguous().view(-1)
    tmp = torch.empty_like(flat)
    out = torch.empty(flat.shape, dtype=flat.dtype, device=flat.device)
    grid = (triton.cdiv(flat.numel(), 512),)
    first = _tanh_cdf if approximate == "tanh" else _cdf
    first[grid](flat, tmp, flat.numel(), BLOCK=512)
    _mul[grid](flat, tmp, out, flat.numel(), BLOCK=512)
    return out.reshape(input.shape)
