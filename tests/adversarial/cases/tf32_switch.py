# expect: forbidden monkeypatch
# task: MatrixMultiply/matmul
# Flipping torch's TF32 switch changes the precision of everything after it, the baseline included.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def matmul(input, other):
    torch.backends.cuda.matmul.allow_tf32 = True
    _touch[(1,)](input)
    return input
