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
# Relative RMS error that TF32 products stay under and bf16 operands do not: contracts that admit TF32 use it
# as Tolerance.rel_rms. Triton's tl.dot(input_precision="tf32") truncates the fp32 operands on NVIDIA tensor
# cores rather than rounding them (triton-lang/triton#4574): on N(0,1) operands truncated TF32 gives 7.7e-4
# (worst seen on small outputs 1.2e-3), rounded TF32 2.9e-4, bf16 operands 2.3e-3.
TF32_REL_RMS = 1.6e-3
TF32_PRECISION = ("TF32 (or fp16-operand) tensor-core products with fp32 accumulation pass; bf16 operands, "
                  "one precision step lower, fail the relative RMS bound")
# Dropout after a product: the checker must tell each kept value from a dropped one elementwise, and plain TF32
# products (truncated operands, errors of ~0.05 in a K = 4096 logit) blur the two where the GPU showed it.
FP32_PRODUCTS_PRECISION = ("fp32-accurate products pass (fp32 FMA, or 3xTF32: tl.dot(..., input_precision='tf32x3')); "
                           "plain TF32 does not: its errors blur the kept and dropped values the check tells apart")
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


def truncate_mantissa(x: torch.Tensor, bits: int) -> torch.Tensor:
    """`x` with its float32 mantissa cut to `bits` explicit bits (toward zero), as tensor cores read TF32."""
    if bits >= FP32_BITS or not x.is_floating_point():
        return x
    i = x.float().contiguous().view(torch.int32)
    return (i & ~((1 << (FP32_BITS - bits)) - 1)).view(torch.float32).reshape(x.shape).to(x.dtype)


class rounded_products(TorchDispatchMode):
    """Inside this mode, matrix products see operands rounded to `bits` mantissa bits."""

    def __init__(self, bits: int, truncate: bool = False) -> None:
        super().__init__()
        self.bits, self.cut = bits, truncate_mantissa if truncate else round_mantissa

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if func.overloadpacket.__name__ in PRODUCT_OPS:
            args = tuple(self.cut(a, self.bits) if isinstance(a, torch.Tensor) and a.is_floating_point()
                         and a.dtype in (torch.float32, torch.float64) else a for a in args)
        return func(*args, **(kwargs or {}))
