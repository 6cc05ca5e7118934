"""MatrixMultiply/matmul_bf16: matrix product with bfloat16 inputs and output and fp32 accumulation."""

import torch

from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.tasks.MatrixMultiply._half_matmul import BF16_DEVIATION, PERF_DEVIATION, half_matmul_task

TASK = half_matmul_task(torch.bfloat16, Tolerance(rtol=1.6e-2, atol=5e-3), (BF16_DEVIATION, PERF_DEVIATION))
