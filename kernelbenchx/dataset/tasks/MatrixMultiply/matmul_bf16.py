"""MatrixMultiply/matmul_bf16: matrix product with bfloat16 inputs and output and fp32 accumulation."""

import torch

from kernelbenchx.dataset.tasks.MatrixMultiply._half_matmul import half_matmul_task

TASK = half_matmul_task(torch.bfloat16, 1.6e-2)
