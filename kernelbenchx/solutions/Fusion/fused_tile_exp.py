from itertools import product

import torch
import triton
import triton.language as tl

# The output is viewed as rows (every output dimension but the last) × the last dimension. A program takes one
# output row and one block of the input's last dimension, computes exp once and stores it at each of the
# repeat positions of that dimension; the row's input row comes from index arithmetic once per program.


@triton.jit
def tile_exp_kernel(x_ptr, y_ptr, n_col_blocks, in_last, out_last, reps_last,
                    O1, O2, I0, I1, I2, xs0, xs1, xs2, xs3, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    row = pid // n_col_blocks
    cb = pid % n_col_blocks
    o2 = row % O2
    r = row // O2
    o1 = r % O1
    o0 = r // O1
    x_row = (o0 % I0) * xs0 + (o1 % I1) * xs1 + (o2 % I2) * xs2
    cols = cb * BLOCK + tl.arange(0, BLOCK)
    mask = cols < in_last
    v = tl.exp(tl.load(x_ptr + x_row + cols * xs3, mask=mask))
    y_row = y_ptr + row * out_last
    for k in range(0, reps_last):
        tl.store(y_row + k * in_last + cols, v, mask=mask)


def launch(x, y):
    """y (contiguous, up to 4-D) = exp(tile of x): x has y's rank, each of y's sizes a multiple of x's."""
    pad = 4 - x.dim()
    in4 = (1,) * pad + tuple(x.shape)
    out4 = (1,) * pad + tuple(y.shape)
    strides = (0,) * pad + tuple(x.stride())
    in_last, out_last = in4[3], out4[3]
    BLOCK = min(2048, triton.next_power_of_2(in_last))
    n_col_blocks = triton.cdiv(in_last, BLOCK)
    rows = out4[0] * out4[1] * out4[2]
    tile_exp_kernel[(rows * n_col_blocks,)](x, y, n_col_blocks, in_last, out_last, out_last // in_last,
                                            out4[1], out4[2], in4[0], in4[1], in4[2], *strides,
                                            BLOCK=BLOCK, num_warps=4 if BLOCK <= 512 else 8)


def fused_tile_exp(input, dims):
    dims = tuple(int(d) for d in dims)
    nd = max(input.dim(), len(dims))
    in_shape = (1,) * (nd - input.dim()) + tuple(input.shape)
    reps = (1,) * (nd - len(dims)) + dims
    out_shape = tuple(s * r for s, r in zip(in_shape, reps))
    y = torch.empty(out_shape, dtype=input.dtype, device=input.device)
    if y.numel() == 0:
        return y
    x = input.reshape(in_shape)  # a view: only leading 1-dims are added
    # rank > 4 (rare): one launch per index of the leading output dimensions, on 4-D views
    lead = out_shape[:-4]
    for idx in product(*(range(n) for n in lead)):
        src = tuple(i % s for i, s in zip(idx, in_shape))
        launch(x[src], y[idx])
    return y
