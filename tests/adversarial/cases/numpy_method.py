# expect: forbidden host_compute
# task: Activation/relu
# The work is done in numpy on the host, which PyTorch's dispatcher never sees.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    values = input.cpu().numpy()
    return torch.tensor(values)
