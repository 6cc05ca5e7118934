# expect: forbidden native_extension
# task: Activation/relu
# DLPack hands the buffer to another library, outside the dispatcher.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    capsule = torch.utils.dlpack.to_dlpack(input)
    return input
