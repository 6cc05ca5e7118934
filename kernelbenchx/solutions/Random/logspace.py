import math

import torch
import triton
import triton.language as tl

# One elementwise kernel, computed in float64 whatever the output dtype: the exponent e_i (from the start for
# the first half, from the end for the second, as torch does) and base**e_i = exp(e_i·ln(base)), rounded once
# to the output dtype. start and end are read on the device when they are tensors. Python floats reach a kernel
# as float32, so floats that float32 cannot hold exactly travel in a small float64 tensor instead.


@triton.jit
def _logspace_kernel(out_ptr, start_ptr, end_ptr, params_ptr, start_val, end_val, base_val, steps,
                     START_T: tl.constexpr, END_T: tl.constexpr, EXACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < steps
    if EXACT:
        start = tl.cast(start_val, tl.float64)
        end = tl.cast(end_val, tl.float64)
        base = tl.cast(base_val, tl.float64)
    else:
        start = tl.load(params_ptr)
        end = tl.load(params_ptr + 1)
        base = tl.load(params_ptr + 2)
    if START_T:
        start = tl.load(start_ptr).to(tl.float64)
    if END_T:
        end = tl.load(end_ptr).to(tl.float64)
    step = (end - start) / tl.maximum(steps - 1, 1).to(tl.float64)
    half = tl.maximum(steps // 2, 1)  # steps = 1: the single value is base**start
    e = tl.where(offs < half, start + offs.to(tl.float64) * step, end - (steps - 1 - offs).to(tl.float64) * step)
    y = tl.exp(e * tl.log(base))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _fp32_exact(x):
    if x == 0.0:
        return True
    mantissa, exponent = math.frexp(x)
    return -125 <= exponent <= 128 and math.ldexp(mantissa, 24).is_integer()


def logspace(start, end, steps, base=10.0, dtype=None):
    dtype = torch.float32 if dtype is None else dtype
    start_t, end_t = isinstance(start, torch.Tensor), isinstance(end, torch.Tensor)
    if start_t:
        device = start.device
    elif end_t:
        device = end.device
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = torch.empty(steps, dtype=dtype, device=device)
    if steps == 0:
        return out
    s = 0.0 if start_t else float(start)
    e = 0.0 if end_t else float(end)
    b = float(base)
    exact = _fp32_exact(s) and _fp32_exact(e) and _fp32_exact(b)
    params = out if exact else torch.tensor([s, e, b], dtype=torch.float64, device=device)
    BLOCK = 1024
    _logspace_kernel[(triton.cdiv(steps, BLOCK),)](
        out, start if start_t else out, end if end_t else out, params, s, e, b, steps,
        START_T=start_t, END_T=end_t, EXACT=exact, BLOCK=BLOCK)
    return out
