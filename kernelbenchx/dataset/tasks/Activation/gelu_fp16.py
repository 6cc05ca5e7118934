"""Activation/gelu_fp16: GELU (exact or tanh-approximated) on float16 tensors, float16 in and out."""

import torch

from kernelbenchx.dataset.tasks.Activation._half_gelu import half_gelu_task

TASK = half_gelu_task(
    torch.float16, [float("nan"), -65504.0, 65504.0, -0.0, 0.0, -1e-4, 1e-4, -6.0, 6.0, -0.75], 5e-3,
    " (x³ of a large float16 value overflows float16 but not float32)")
