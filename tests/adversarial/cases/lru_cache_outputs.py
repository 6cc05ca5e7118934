# expect: forbidden cross_call_state
# task: Activation/relu
# A cache decorator keyed on the input's shape returns a stale result on the next call.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


from functools import lru_cache


@lru_cache(maxsize=None)
def _cached(n):
    return None


def relu(input):
    _touch[(1,)](input)
    _cached(input.numel())
    return input
