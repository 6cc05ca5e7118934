"""Precision contracts of the MatrixMultiply and Convolution tasks (private helper; candidates for
dataset/precision.py and dataset/bounds.py).

Two kinds of task:

TF32 tasks (matrix outputs: matmul, addmm, tril_mm_and_scale, matrix_multiply_symmetric, conv2d,
conv_transpose2d) accept TF32 tensor-core products. Triton's ``tl.dot(..., input_precision="tf32")`` on
NVIDIA GPUs does not round the fp32 operands to TF32, the tensor cores drop their 13 low mantissa bits
(truncation toward zero; triton-lang/triton#4574, and #9295 adds rounding only as an option). Truncation
shrinks every product by about 2⁻¹¹ on average, so on N(0, 1) operands its relative RMS error is 7.7e-4
where round-to-nearest TF32 gives 2.9e-4 (bf16 operands: 2.3e-3); on outputs with few independent values
the measured worst case reaches 1.2e-3. ``REL_RMS`` sits between truncated TF32 and bf16 operands; a chain of
two products (the second one's operands carry the first one's error) doubles it.

Strict tasks (scalar or vector outputs: matrix_multiply_and_row_dot, symmetric_mm_and_abs_sum,
matrix_vector_dot, tensordot_rsqrt) require fp32 products. Where an output sums or averages many
products (a dot of two rows, a sum of |C|, a contraction of positive factors), random rounding errors of
the operands cancel while truncation's bias does not, so no tolerance can accept Triton's TF32 and reject
bf16 operands there; those tasks are either memory-bound (TF32 buys nothing) or their output is that kind
of sum. Their tolerance is an fp32 accumulation bound in the style of dataset/bounds.py
(B = 2·ε·√n·‖terms‖₂ per accumulation of n terms, ε = 2⁻²³), propagated through the later steps; TF32
products (error ≈ 2⁻¹¹·‖terms‖₂ per accumulation) exceed it by two to three orders of magnitude.
"""

from __future__ import annotations

import math

import torch

from kernelbenchx.dataset.bounds import C as BOUND_C

EPS = 2.0 ** -23  # fp32, as in dataset/bounds.py

# Relative RMS error a TF32 task admits: truncated-TF32 products (Triton's tl.dot) stay under it on every case,
# bf16 operands exceed it on the stage-2 matrices (measured: truncated TF32 ≤ 1.2e-3, bf16 ≥ 2.2e-3 on outputs of
# 256×256; see tests/test_precision.py).
REL_RMS = 1.6e-3
REL_RMS_CHAINED = 2 * REL_RMS  # two products in sequence: the second multiplies the first one's error
PRECISION = ("TF32 tensor-core products with fp32 accumulation pass, whether the fp32 operands are rounded to TF32 "
             "or truncated (Triton's tl.dot does the latter, ~8e-4 relative RMS error); fp16-operand products pass "
             "too; bf16 operands (~2.3e-3) fail the relative RMS bound")
STRICT_PRECISION = ("fp32 products only: TF32 operands (rounded or truncated) and lower precisions exceed B (by 5× to "
                    "1000× on the test cases). Any summation order, blocking, split reduction or atomics in fp32 "
                    "pass")


def acc(sq_sum: torch.Tensor, n: int) -> torch.Tensor:
    """B for one fp32 accumulation of n terms whose squares sum to `sq_sum` (dataset/bounds.py)."""
    return BOUND_C * EPS * math.sqrt(max(n, 1)) * sq_sum.clamp_min(0).sqrt()


def rounding(*values: torch.Tensor) -> torch.Tensor:
    """B for a few roundings (a scaling, an addition) of fp32 values: C·ε·Σ|value|."""
    return BOUND_C * EPS * sum(v.abs() for v in values)
