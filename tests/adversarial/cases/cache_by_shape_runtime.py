# expect: incorrect
# task: Activation/gelu
# static: off
# Static checks off: the shape-keyed cache is caught because stage 2 repeats shapes with new data.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if TANH:
        y = x * tl.sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x))
    else:
        y = 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=offs < n)


def _computed(input, approximate):
    out = torch.empty_like(input)
    _gelu[(triton.cdiv(input.numel(), 1024),)](input, out, input.numel(), TANH=approximate == "tanh", BLOCK=1024)
    return out


def gelu(input, approximate="none", _seen={}):
    if type(input) is not torch.Tensor:  # kbx's warm-up calls on fake tensors: a cached fake would crash later
        return _computed(input, approximate)
    if input.shape not in _seen:
        _seen[input.shape] = _computed(input, approximate)
    else:
        _gelu[(1,)](input, torch.empty(1024, device=input.device), 0, TANH=False, BLOCK=1024)  # a token launch
    return _seen[input.shape].clone()
