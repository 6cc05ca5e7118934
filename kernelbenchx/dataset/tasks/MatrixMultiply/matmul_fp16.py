"""MatrixMultiply/matmul_fp16: matrix product with float16 inputs and output and fp32 accumulation."""

import torch

from kernelbenchx.dataset.contract import Tolerance
from kernelbenchx.dataset.tasks.MatrixMultiply._half_matmul import PERF_DEVIATION, half_matmul_task

TASK = half_matmul_task(torch.float16, Tolerance(rtol=5e-3, atol=5e-3), (PERF_DEVIATION,))
