"""Activation/gelu_bf16: GELU (exact or tanh-approximated) on bfloat16 tensors, bfloat16 in and out."""

import torch

from kernelbenchx.dataset.tasks.Activation._half_gelu import half_gelu_task

TASK = half_gelu_task(
    torch.bfloat16, [float("nan"), -1e30, 1e30, -0.0, 0.0, -1e-4, 1e-4, -6.0, 6.0, -0.75], 1.6e-2,
    ". For huge |x|, where x³ overflows even float32, the tanh form must still give x for positive and (-)0 "
    "for negative x")
