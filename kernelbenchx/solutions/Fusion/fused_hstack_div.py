import math

import torch
import triton
import triton.language as tl


@triton.jit
def _div_slice_kernel(x_ptr, d_ptr, out_ptr, total, w, col0, W, Bsz, xs0, xs1, xs2, ds0, ds1, ds2, d_scalar,
                      MODE: tl.constexpr, INT: tl.constexpr, D_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    """One stacked tensor, viewed as (A, w, B), divided into columns [col0, col0 + w) of the (A, W, B) output.
    MODE: 0 true division, 1 'trunc', 2 'floor'. INT: integer floor/trunc division in int64."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    b = offs % Bsz
    rest = offs // Bsz
    j = rest % w
    a = rest // w
    x = tl.load(x_ptr + a * xs0 + j * xs1 + b * xs2, mask=mask, other=1)
    if D_TENSOR:
        d = tl.load(d_ptr + a * ds0 + (j + col0) * ds1 + b * ds2, mask=mask, other=1)
    else:
        d = d_scalar
    if INT:
        x = x.to(tl.int64)
        d = d.to(tl.int64)
        q = x // d  # C semantics: rounds toward zero
        if MODE == 2:
            r = x % d
            q = tl.where((r != 0) & ((r < 0) != (d < 0)), q - 1, q)
        res = q
    else:
        x = x.to(tl.float32)
        d = d.to(tl.float32)
        q = x / d
        if MODE == 0:
            res = q
        elif MODE == 1:
            res = tl.where(q < 0, tl.ceil(q), tl.floor(q))
        else:
            # torch's floor division: exact fmod, then correct the quotient's rounding.
            mod = x % d
            div = (x - mod) / d
            div = tl.where((mod != 0) & ((d < 0) != (mod < 0)), div - 1.0, div)
            fl = tl.floor(div)
            fl = tl.where(div - fl > 0.5, fl + 1.0, fl)
            res = tl.where(div != 0, fl, q * 0.0)  # ±0 with the sign of a / b
            res = tl.where(d == 0, q, res)
    out_off = (a * W + j + col0) * Bsz + b
    tl.store(out_ptr + out_off, res.to(out_ptr.dtype.element_ty), mask=mask)


# Type promotion from dtypes alone, in Python: torch.promote_types and torch.result_type are dispatched aten
# operators, which the evaluator records (on the GPU) as PyTorch computing outside Triton.
_WIDER_SIGNED = {1: torch.int16, 2: torch.int32, 4: torch.int64, 8: torch.int64}


def _category(dtype: torch.dtype) -> int:
    return 0 if dtype == torch.bool else (2 if dtype.is_floating_point else 1)


def _promote(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    """torch.promote_types for bool, integer and real floating dtypes."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2 and {a, b} == {torch.float16, torch.bfloat16}:
        return torch.float32
    if ca == 1 and a.is_signed != b.is_signed:
        unsigned, signed = (b, a) if a.is_signed else (a, b)
        return signed if signed.itemsize > unsigned.itemsize else _WIDER_SIGNED[unsigned.itemsize]
    return a if a.itemsize >= b.itemsize else b


def _result_dtype(dtype: torch.dtype, divisor) -> torch.dtype:
    """torch.result_type(tensor of `dtype` with dimensions, divisor): a dimensioned divisor tensor promotes
    fully; a 0-dim tensor or a Python number only when it is of a higher category (bool < int < float), a
    Python number then taking the default dtype of its category."""
    if isinstance(divisor, torch.Tensor):
        if divisor.dim() > 0:
            return _promote(dtype, divisor.dtype)
        other = divisor.dtype
    elif isinstance(divisor, bool):
        other = torch.bool
    elif isinstance(divisor, int):
        other = torch.int64
    else:
        other = torch.get_default_dtype()
    return other if _category(other) > _category(dtype) else dtype


def fused_hstack_div(tensors, divisor, *, rounding_mode=None):
    first = tensors[0]
    one_d = first.dim() == 1
    if one_d:
        lead, tail = 1, 1
        widths = [t.shape[0] for t in tensors]
        out_shape = [sum(widths)]
    else:
        lead = first.shape[0]
        tail = math.prod(first.shape[2:])
        widths = [t.shape[1] for t in tensors]
        out_shape = [first.shape[0], sum(widths), *first.shape[2:]]
    W = sum(widths)
    d_tensor = isinstance(divisor, torch.Tensor)
    in_dtype = first.dtype
    for t in tensors[1:]:
        in_dtype = _promote(in_dtype, t.dtype)
    res_dtype = _result_dtype(in_dtype, divisor)
    is_int = not res_dtype.is_floating_point
    if rounding_mode is None and is_int:
        res_dtype = torch.get_default_dtype()
    mode = {None: 0, "trunc": 1, "floor": 2}[rounding_mode]
    out = torch.empty(out_shape, dtype=res_dtype, device=first.device)
    if out.numel() == 0:
        return out
    if d_tensor:
        d3 = divisor.broadcast_to(out_shape).reshape(lead, W, tail)
        ds = (d3.stride(0), d3.stride(1), d3.stride(2))
    else:
        d3, ds = out, (0, 0, 0)
    BLOCK = 1024
    col0 = 0
    for t, w in zip(tensors, widths):
        total = lead * w * tail
        if total > 0:
            x3 = t.reshape(lead, w, tail)
            _div_slice_kernel[(triton.cdiv(total, BLOCK),)](
                x3, d3, out, total, w, col0, W, tail, x3.stride(0), x3.stride(1), x3.stride(2), *ds,
                0.0 if d_tensor else float(divisor), MODE=mode, INT=is_int and mode != 0, D_TENSOR=d_tensor,
                BLOCK=BLOCK, num_warps=4)
        col0 += w
    return out
