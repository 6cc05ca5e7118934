import torch
import triton
import triton.language as tl


@triton.jit
def _hardshrink_dropout_kernel(x_ptr, out_ptr, n, p, scale, lambd, seed,
                               RANDOM: tl.constexpr, INPLACE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if RANDOM:
        d = tl.where(tl.rand(seed, offs) >= p, x * scale, 0.0)
    else:
        d = x * scale  # scale is 1 (no dropout) or 0 (p = 1)
    tl.store(out_ptr + offs, tl.where(tl.abs(d) > lambd, d, 0.0), mask=mask)
    if INPLACE:
        tl.store(x_ptr + offs, d, mask=mask)


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5, seed=0):
    # The mask is drawn per logical element (offset in row-major order), so any layout gives the same result:
    # non-contiguous inputs are made contiguous, and an in-place result is copied back through the view.
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    random = bool(training) and 0.0 < p < 1.0
    if random:
        scale = 1.0 / (1.0 - p)
    else:
        scale = 0.0 if (training and p >= 1.0) else 1.0
    BLOCK = 1024
    if n:
        _hardshrink_dropout_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, p, scale, lambd, seed,
                                                             RANDOM=random, INPLACE=inplace, BLOCK=BLOCK)
        if inplace and x.data_ptr() != input.data_ptr():
            input.copy_(x)
    return out
