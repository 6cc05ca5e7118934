"""Activation/gelu_fp16: GELU (exact or tanh-approximated) on float16 tensors, float16 in and out."""

import torch

from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.tasks.Activation._half_gelu import half_gelu_task
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

inf, nan = float("inf"), float("nan")

TASK = half_gelu_task(
    torch.float16, [nan, inf, -inf, -65504.0, 65504.0, -0.0, 0.0, -1e-4, 1e-4, -6.0, 6.0, -0.75, -20.0],
    Tolerance(rtol=5e-3, atol=5e-3),
    " (x³ of a large float16 value overflows float16 but not float32)",
    deviations=(
        Deviation(Kind.COVERAGE, "fixed vectors in [-10, 10], a 257-point ramp and random 1024×1024 matrices",
                  "adds ±inf, NaN, ±65504, empty and size-1 dimensions; random inputs of 65 537, 129×257 and "
                  "4×31×127 elements", "special values and odd shapes a kernel must handle under the same "
                  "semantics; random inputs stay small enough for the CPU interpreter"),
        sweep_subset("1-D float16 inputs of 2^16, 2^24 and 2^27 elements ('none'), and 2^27 with 'tanh'",
                     upstream="16 1-D float16 inputs of 2^12 … 2^27 elements, approximate='none', times summed",
                     extra_reason="the tanh form is timed too because its kernel differs"),
    ),
)
