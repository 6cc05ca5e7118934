# expect: forbidden class_definition
# task: Activation/relu
# A class with __torch_function__ would intercept torch calls; classes are not needed for kernel code.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


class Lazy:
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def relu(input):
    _touch[(1,)](input)
    return input
