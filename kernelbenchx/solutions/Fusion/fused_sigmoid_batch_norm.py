import torch
import triton
import triton.language as tl

# The input is viewed as (N, C, L) (L = 1 for 2-D inputs). Training mode: per-channel sums of (x − K) and
# (x − K)² with K the channel's first element (a shift that removes the cancellation of large means), split
# over N for parallelism, then one small kernel per channel block merges them, updates the running statistics
# in place and folds the normalization and affine parameters into scale and shift. The elementwise kernel
# then writes sigmoid(x·scale + shift).


@triton.jit
def stats_kernel(x_ptr, s1_ptr, s2_ptr, N, C, L, n_per_split, sxn, sxc, sxl,
                 BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    cb = tl.program_id(0)
    split = tl.program_id(1)
    c = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    c_ok = c < C
    k = tl.load(x_ptr + c.to(tl.int64) * sxc, mask=c_ok, other=0.0)  # x[0, c, 0]
    acc1 = tl.zeros((BLOCK_C, BLOCK_L), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_C, BLOCK_L), dtype=tl.float32)
    n_start = split * n_per_split
    for dn in range(0, n_per_split):
        n = n_start + dn
        for l0 in range(0, L, BLOCK_L):
            ls = l0 + tl.arange(0, BLOCK_L)
            ok = c_ok[:, None] & (ls < L)[None, :] & (n < N)
            v = tl.load(x_ptr + n.to(tl.int64) * sxn + c[:, None].to(tl.int64) * sxc + ls[None, :] * sxl,
                        mask=ok, other=0.0)
            d = tl.where(ok, v - k[:, None], 0.0)
            acc1 += d
            acc2 += d * d
    tl.store(s1_ptr + split * C + c, tl.sum(acc1, axis=1), mask=c_ok)
    tl.store(s2_ptr + split * C + c, tl.sum(acc2, axis=1), mask=c_ok)


@triton.jit
def finalize_kernel(x_ptr, s1_ptr, s2_ptr, rm_ptr, rv_ptr, w_ptr, b_ptr, scale_ptr, shift_ptr,
                    C, count, n_split, sxc, rm_stride, rv_stride, w_stride, b_stride, momentum, eps,
                    TRAINING: tl.constexpr, HAS_STATS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                    BLOCK: tl.constexpr):
    c = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = c < C
    if TRAINING:
        k = tl.load(x_ptr + c.to(tl.int64) * sxc, mask=ok, other=0.0)
        s1 = tl.zeros((BLOCK,), dtype=tl.float32)
        s2 = tl.zeros((BLOCK,), dtype=tl.float32)
        for sp in range(0, n_split):
            s1 += tl.load(s1_ptr + sp * C + c, mask=ok, other=0.0)
            s2 += tl.load(s2_ptr + sp * C + c, mask=ok, other=0.0)
        dmean = s1 / count
        mean = k + dmean
        var = tl.maximum(s2 / count - dmean * dmean, 0.0)
        if HAS_STATS:
            rm = tl.load(rm_ptr + c * rm_stride, mask=ok, other=0.0)
            rv = tl.load(rv_ptr + c * rv_stride, mask=ok, other=0.0)
            tl.store(rm_ptr + c * rm_stride, (1.0 - momentum) * rm + momentum * mean, mask=ok)
            tl.store(rv_ptr + c * rv_stride, (1.0 - momentum) * rv + momentum * (var * count / (count - 1.0)),
                     mask=ok)
    else:
        mean = tl.load(rm_ptr + c * rm_stride, mask=ok, other=0.0)
        var = tl.load(rv_ptr + c * rv_stride, mask=ok, other=1.0)
    scale = 1.0 / tl.sqrt(var + eps)
    if HAS_W:
        scale = scale * tl.load(w_ptr + c * w_stride, mask=ok, other=1.0)
    shift = -mean * scale
    if HAS_B:
        shift += tl.load(b_ptr + c * b_stride, mask=ok, other=0.0)
    tl.store(scale_ptr + c, scale, mask=ok)
    tl.store(shift_ptr + c, shift, mask=ok)


@triton.jit
def apply_kernel(x_ptr, scale_ptr, shift_ptr, y_ptr, C, L, n_cb, n_lb, sxn, sxc, sxl,
                 BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    lb = pid % n_lb
    r = pid // n_lb
    cb = r % n_cb
    n = r // n_cb
    c = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    ls = lb * BLOCK_L + tl.arange(0, BLOCK_L)
    ok = (c < C)[:, None] & (ls < L)[None, :]
    x = tl.load(x_ptr + n * sxn + c[:, None] * sxc + ls[None, :] * sxl, mask=ok, other=0.0)
    scale = tl.load(scale_ptr + c, mask=c < C, other=0.0)
    shift = tl.load(shift_ptr + c, mask=c < C, other=0.0)
    v = x * scale[:, None] + shift[:, None]
    y = 1.0 / (1.0 + tl.exp(-v))
    tl.store(y_ptr + n * C * L + c[:, None] * L + ls[None, :], y, mask=ok)


def fused_sigmoid_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
                             momentum=0.1, eps=1e-5):
    N, C = input.shape[0], input.shape[1]
    L = 1
    for s in input.shape[2:]:
        L *= s
    x = input.reshape(N, C, L)
    sxn, sxc, sxl = x.stride()
    dev = input.device
    y = torch.empty(input.shape, dtype=torch.float32, device=dev)
    scale = torch.empty(C, dtype=torch.float32, device=dev)
    shift = torch.empty(C, dtype=torch.float32, device=dev)
    has_stats = running_mean is not None and running_var is not None
    BLOCK_L = min(triton.next_power_of_2(L), 1024)
    BLOCK_C = max(1, min(triton.next_power_of_2(C), 1024 // BLOCK_L))
    n_cb = triton.cdiv(C, BLOCK_C)
    n_split = 1
    s1 = s2 = scale
    if training:
        n_split = max(1, min(N, triton.cdiv(512, n_cb)))
        n_per_split = triton.cdiv(N, n_split)
        n_split = triton.cdiv(N, n_per_split)
        s1 = torch.empty((n_split, C), dtype=torch.float32, device=dev)
        s2 = torch.empty((n_split, C), dtype=torch.float32, device=dev)
        stats_kernel[(n_cb, n_split)](x, s1, s2, N, C, L, n_per_split, sxn, sxc, sxl,
                                      BLOCK_C=BLOCK_C, BLOCK_L=BLOCK_L, num_warps=4)
    rm = running_mean if has_stats else scale
    rv = running_var if has_stats else scale
    w = weight if weight is not None else scale
    b = bias if bias is not None else scale
    FB = 256
    finalize_kernel[(triton.cdiv(C, FB),)](x, s1, s2, rm, rv, w, b, scale, shift, C, float(N * L), n_split, sxc,
                                           rm.stride(0), rv.stride(0), w.stride(0), b.stride(0),
                                           float(momentum), float(eps), TRAINING=bool(training),
                                           HAS_STATS=has_stats, HAS_W=weight is not None,
                                           HAS_B=bias is not None, BLOCK=FB)
    n_lb = triton.cdiv(L, BLOCK_L)
    apply_kernel[(N * n_cb * n_lb,)](x, scale, shift, y, C, L, n_cb, n_lb, sxn, sxc, sxl,
                                     BLOCK_C=BLOCK_C, BLOCK_L=BLOCK_L, num_warps=4)
    return y
