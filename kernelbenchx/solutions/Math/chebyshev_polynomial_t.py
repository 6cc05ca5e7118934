import torch
import triton
import triton.language as tl

# T_n(x) per element with torch's case order: n < 0 → 0; |x| = 1 → ±1; n > 6 and |x| < 1 → cos(n·acos x);
# n = 0 → 1; n = 1 → x; else the recurrence T_{k+1} = 2x·T_k − T_{k−1}. The recurrence runs, per block, up to the
# largest degree any of its elements needs (a loop bound computed in the kernel), masked per element.
MAX_DIMS = 4
BLOCK = 1024


@triton.jit
def _acos(x):
    # acos via the asin minimax polynomial on arguments ≤ 1/2: x ≤ 1/2 → π/2 − asin(x);
    # |x| > 1/2 → 2·asin(sqrt((1 − |x|)/2)) (reflected for x < 0), accurate next to ±1
    a = tl.abs(x)
    big = a > 0.5
    z = tl.where(big, 0.5 * (1.0 - a), a * a)
    s = tl.where(big, tl.sqrt_rn(z), a)
    p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z \
        + 1.6666752422e-1
    r = s + s * z * p  # asin(s)
    small_acos = 1.5707963267948966 - tl.where(x < 0.0, -r, r)
    big_acos = tl.where(x < 0.0, 3.141592653589793 - 2.0 * r, 2.0 * r)
    return tl.where(big, big_acos, small_acos)


@triton.jit
def _chebyshev(x, n):
    ax = tl.abs(x)
    use_cos = (n > 6) & (ax < 1.0)
    trig = tl.cos(n.to(tl.float32) * _acos(tl.where(use_cos, x, 0.0)))
    needs = (n >= 2) & (ax != 1.0) & (~use_cos)
    top = tl.max(tl.where(needs, n, 0), axis=0)
    p = tl.full(x.shape, 1.0, tl.float32)
    q = x
    for k in range(2, top + 1):
        r = (x + x) * q - p
        live = k <= n
        p = tl.where(live, q, p)
        q = tl.where(live, r, q)
    one_sign = tl.where((x > 0.0) | (n % 2 == 0), 1.0, -1.0)
    res = tl.where(n == 1, x, q)
    res = tl.where(n == 0, 1.0, res)
    res = tl.where(use_cos, trig, res)
    res = tl.where(ax == 1.0, one_sign, res)
    res = tl.where(n < 0, 0.0, res)
    return res


@triton.jit
def _cheb_flat_kernel(x_ptr, n_ptr, out_ptr, numel, deg, N_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if N_TENSOR:
        nn = tl.load(n_ptr + offs, mask=mask, other=0)
    else:
        nn = tl.zeros(x.shape, tl.int64) + deg
    tl.store(out_ptr + offs, _chebyshev(x, nn), mask=mask)


@triton.jit
def _cheb_strided_kernel(x_ptr, n_ptr, out_ptr, numel, deg, d1, d2, d3, xs0, xs1, xs2, xs3, ns0, ns1, ns2, ns3,
                         N_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    i3 = offs % d3
    rest = offs // d3
    i2 = rest % d2
    rest = rest // d2
    i1 = rest % d1
    i0 = rest // d1
    x = tl.load(x_ptr + i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3, mask=mask, other=0.0)
    if N_TENSOR:
        nn = tl.load(n_ptr + i0 * ns0 + i1 * ns1 + i2 * ns2 + i3 * ns3, mask=mask, other=0)
    else:
        nn = tl.zeros(x.shape, tl.int64) + deg
    tl.store(out_ptr + offs, _chebyshev(x, nn), mask=mask)


def _padded_strides(t: torch.Tensor, shape: torch.Size) -> tuple[int, ...]:
    return (0,) * (MAX_DIMS - len(shape)) + tuple(t.expand(shape).stride())


def chebyshev_polynomial_t(input: torch.Tensor, n) -> torch.Tensor:
    n_tensor = isinstance(n, torch.Tensor)
    shape = torch.broadcast_shapes(input.shape, n.shape) if n_tensor else input.shape
    out = torch.empty(shape, dtype=torch.float32, device=input.device)
    numel = out.numel()
    if numel == 0:
        return out
    n_arg, deg = (n, 0) if n_tensor else (input, int(n))
    grid = (triton.cdiv(numel, BLOCK),)
    if input.shape == shape and input.is_contiguous() and (
            not n_tensor or (n.shape == shape and n.is_contiguous())):
        _cheb_flat_kernel[grid](input, n_arg, out, numel, deg, N_TENSOR=n_tensor, BLOCK=BLOCK, num_warps=4)
        return out
    if len(shape) > MAX_DIMS:  # rare: materialize the broadcast and run flat
        x = input.expand(shape).contiguous()
        n_arg = n.expand(shape).contiguous() if n_tensor else x
        _cheb_flat_kernel[grid](x, n_arg, out, numel, deg, N_TENSOR=n_tensor, BLOCK=BLOCK, num_warps=4)
        return out
    dims = (1,) * (MAX_DIMS - len(shape)) + tuple(shape)
    ns = _padded_strides(n, shape) if n_tensor else (0,) * MAX_DIMS
    _cheb_strided_kernel[grid](input, n_arg, out, numel, deg, dims[1], dims[2], dims[3],
                               *_padded_strides(input, shape), *ns, N_TENSOR=n_tensor, BLOCK=BLOCK, num_warps=4)
    return out
