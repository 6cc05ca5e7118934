"""Activation/gelu_bf16: GELU (exact or tanh-approximated) on bfloat16 tensors, bfloat16 in and out."""

import torch

from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.tasks.Activation._half_gelu import half_gelu_task
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

inf, nan = float("inf"), float("nan")

# rtol 1e-2 admits one bfloat16 ulp (at most 2^-7 ≈ 7.8e-3 of the value) wherever the float32 GELU lies near a
# bfloat16 rounding boundary; upstream's 5e-3 + 5e-3·|y| rejects that ulp once |y| ≳ 1.8.
TASK = half_gelu_task(
    torch.bfloat16, [nan, inf, -inf, -1e30, 1e30, -0.0, 0.0, -1e-4, 1e-4, -6.0, 6.0, -0.75, -20.0],
    Tolerance(rtol=1e-2, atol=5e-3),
    ". For huge |x|, where x³ overflows even float32, the tanh form must still give x for positive and (-)0 "
    "for negative x",
    deviations=(
        Deviation(Kind.TOLERANCE, "rtol = atol = 5e-3", "rtol 1e-2, atol 5e-3",
                  "a float32 GELU rounded once to bfloat16 can land one bfloat16 ulp (up to 2^-7 ≈ 7.8e-3 of the "
                  "value) away from torch's wherever two correct float32 results straddle a rounding boundary; "
                  "5e-3 + 5e-3·|y| rejects that for |y| ≳ 1.8. torch's own scalar and AVX2 CPU kernels disagree "
                  "this way (per form, 1 value in 1.2·10^6 beyond upstream's tolerance, none beyond kbx's)"),
        Deviation(Kind.COVERAGE, "fixed vectors in [-10, 10], a 257-point ramp and 2048-element random vectors",
                  "adds ±inf, NaN, ±1e30 (x³ overflows float32), empty and size-1 dimensions; random inputs of "
                  "65 537, 129×257 and 4×31×127 elements", "special values and odd shapes a kernel must handle "
                  "under the same semantics"),
        sweep_subset("1-D bfloat16 inputs of 2^16, 2^24 and 2^27 elements ('none'), and 2^27 with 'tanh'",
                     upstream="16 1-D bfloat16 inputs of 2^12 … 2^27 elements, approximate='none', times summed",
                     extra_reason="the tanh form is timed too because its kernel differs"),
    ),
)
