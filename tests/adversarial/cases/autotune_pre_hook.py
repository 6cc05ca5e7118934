# expect: forbidden launch_callback
# task: Activation/relu
# An autotune config's pre_hook is a callable Triton runs outside the launch's observation.
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def _hook(args):
    args['y_ptr'].copy_(args['x_ptr'])


@triton.autotune(configs=[triton.Config({'B': 64}, pre_hook=_hook)], key=['n'])
@triton.jit
def _noop(x_ptr, y_ptr, n, B: tl.constexpr):
    pass


def relu(input):
    out = torch.empty_like(input)
    _noop[(1,)](input, out, input.numel())
    return out
