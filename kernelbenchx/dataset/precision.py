"""Which precision a tolerance admits: the reference computed with its matrix products' operands rounded to
fewer mantissa bits, so a test can show that a task accepts TF32 and rejects bf16 (or accepts only fp32).

`rounded_products(bits)` is a TorchDispatchMode that rounds the operands of every matrix-product-class
operator (mm, bmm, addmm, baddbmm, addmv, mv, dot, convolution, ...) to `bits` explicit mantissa bits (round to
nearest even) and lets the product accumulate as before (fp32): what a tensor-core kernel with that operand
precision computes. TF32 and fp16 keep 10 bits, bf16 keeps 7, fp32 23.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

TF32_BITS, BF16_BITS, FP32_BITS = 10, 7, 23
# Relative RMS error that TF32 products (measured: 2.9e-4 on N(0,1) operands at K = 16 … 4096) stay well
# under and bf16 operands (2.4e-3) do not: contracts that admit TF32 use it as Tolerance.rel_rms.
TF32_REL_RMS = 1e-3
TF32_PRECISION = ("TF32 (or fp16-operand) tensor-core products with fp32 accumulation pass; bf16 operands, "
                  "one precision step lower, fail the relative RMS bound")
PRODUCT_OPS = frozenset({"mm", "bmm", "addmm", "baddbmm", "addmv", "mv", "dot", "vdot", "matmul", "addbmm",
                         "convolution", "_convolution", "einsum", "linear", "addr", "outer", "ger", "tensordot"})


def round_mantissa(x: torch.Tensor, bits: int) -> torch.Tensor:
    """`x` (floating) rounded to `bits` explicit mantissa bits, round to nearest even, in float32 range."""
    if bits >= FP32_BITS or not x.is_floating_point():
        return x
    dtype = x.dtype
    i = x.float().contiguous().view(torch.int32)
    drop = FP32_BITS - bits
    lsb = (i >> drop) & 1
    rounded = (i + ((1 << (drop - 1)) - 1) + lsb) & ~((1 << drop) - 1)
    return rounded.view(torch.float32).reshape(x.shape).to(dtype)


class rounded_products(TorchDispatchMode):
    """Inside this mode, matrix products see operands rounded to `bits` mantissa bits."""

    def __init__(self, bits: int) -> None:
        super().__init__()
        self.bits = bits

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if func.overloadpacket.__name__ in PRODUCT_OPS:
            args = tuple(round_mantissa(a, self.bits) if isinstance(a, torch.Tensor) and a.is_floating_point()
                         and a.dtype in (torch.float32, torch.float64) else a for a in args)
        return func(*args, **(kwargs or {}))
