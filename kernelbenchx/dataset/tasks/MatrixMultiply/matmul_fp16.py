"""MatrixMultiply/matmul_fp16: matrix product with float16 inputs and output and fp32 accumulation."""

import torch

from kernelbenchx.dataset.tasks.MatrixMultiply._half_matmul import half_matmul_task

TASK = half_matmul_task(torch.float16, 5e-3)
