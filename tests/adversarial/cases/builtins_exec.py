# expect: forbidden introspection
# task: Activation/relu
# The builtins dictionary holds exec and __import__.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def relu(input):
    _touch[(1,)](input)
    run = __builtins__['exec']
    scope = {'x': input}
    run('y = x.clamp_min(0)', scope)
    return scope['y']
