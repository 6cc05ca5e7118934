# expect: forbidden host_compute
# task: Activation/gelu
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    _touch[(1,)](input)
    values = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in input.reshape(-1).tolist()]
    return torch.tensor(values, dtype=input.dtype).reshape(input.shape)
