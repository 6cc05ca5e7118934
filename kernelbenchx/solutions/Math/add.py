import torch
import triton
import triton.language as tl

# Same-shape contiguous operands (or a scalar) take a flat 1-D kernel. Anything else (broadcasting, strided
# views) takes a row kernel: the output is seen as rows of its last dimension, each program handles one block
# of one row, and the row index is unraveled into the leading dimensions once per program (scalar math), so no
# per-element division is needed; stride 0 marks a broadcast dimension.
MAX_DIMS = 4
BLOCK = 1024


@triton.jit
def _add_flat_kernel(x_ptr, y_ptr, out_ptr, n, alpha, scalar, Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if Y_SCALAR:
        y = scalar
    else:
        y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


@triton.jit
def _add_rows_kernel(x_ptr, y_ptr, out_ptr, alpha, scalar, n_col_blocks, d1, d2, cols,
                     xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3, Y_SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // n_col_blocks
    cb = pid - row * n_col_blocks
    i2 = row % d2
    rest = row // d2
    i1 = rest % d1
    i0 = (rest // d1).to(tl.int64)
    i1 = i1.to(tl.int64)
    i2 = i2.to(tl.int64)
    c = cb * BLOCK + tl.arange(0, BLOCK)
    mask = c < cols
    c = c.to(tl.int64)
    x = tl.load(x_ptr + (i0 * xs0 + i1 * xs1 + i2 * xs2) + c * xs3, mask=mask)
    if Y_SCALAR:
        y = scalar
    else:
        y = tl.load(y_ptr + (i0 * ys0 + i1 * ys1 + i2 * ys2) + c * ys3, mask=mask)
    tl.store(out_ptr + row.to(tl.int64) * cols + c, x + alpha * y, mask=mask)


def _padded_strides(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    return (0,) * (MAX_DIMS - len(shape)) + tuple(t.expand(shape).stride())


def add(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    y_scalar = not isinstance(other, torch.Tensor)
    shape = input.shape if y_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.result_type(input, other), device=input.device)
    n = out.numel()
    if n == 0:
        return out
    y_arg, scalar = (input, other) if y_scalar else (other, 0)
    flat = input.shape == shape and input.is_contiguous() and (
        y_scalar or (other.shape == shape and other.is_contiguous()))
    if flat:
        _add_flat_kernel[(triton.cdiv(n, BLOCK),)](input, y_arg, out, n, alpha, scalar, Y_SCALAR=y_scalar,
                                                   BLOCK=BLOCK, num_warps=4)
        return out
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = input.expand(shape).contiguous()
        y = y_arg if y_scalar else other.expand(shape).contiguous()
        _add_flat_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, alpha, scalar, Y_SCALAR=y_scalar, BLOCK=BLOCK,
                                                   num_warps=4)
        return out
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    ys = (0,) * MAX_DIMS if y_scalar else _padded_strides(other, shape)
    block = max(16, min(BLOCK, triton.next_power_of_2(dims[3])))
    n_col_blocks = triton.cdiv(dims[3], block)
    grid = (dims[0] * dims[1] * dims[2] * n_col_blocks,)
    _add_rows_kernel[grid](input, y_arg, out, alpha, scalar, n_col_blocks, dims[1], dims[2], dims[3],
                           *_padded_strides(input, shape), *ys, Y_SCALAR=y_scalar, BLOCK=block,
                           num_warps=4 if block >= 512 else 1)
    return out
