import torch
import triton
import triton.language as tl

# y = x Wᵀ + b by a tiled tl.dot kernel (TF32 as the contract allows, float16 operands for float16 inputs)
# into a float32 buffer, then log-softmax along `dim` of y viewed as (outer, L, inner): a program takes one
# outer index and a block of inner indices (rows along the contiguous axis), in one pass when the softmax
# length fits a block and in two (online max/sum, then write) otherwise.


@triton.jit
def linear_kernel(a_ptr, w_ptr, b_ptr, c_ptr, M, N, K, sam, sak, swn, swk, sb,
                  HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * num_n)
    first_m = group * GROUP_M
    size_m = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_n)) % size_m
    pid_n = (pid % (GROUP_M * num_n)) // size_m
    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm < M)[:, None] & (kk < K)[None, :],
                    other=0.0)
        w = tl.load(w_ptr + rn[None, :] * swn + kk[:, None] * swk, mask=(rn < N)[None, :] & (kk < K)[:, None],
                    other=0.0)
        acc = tl.dot(a, w, acc, input_precision="tf32")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn * sb, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm < M)[:, None] & (rn < N)[None, :])


@triton.jit
def log_softmax_kernel(y_ptr, o_ptr, L, inner, n_ib, F64: tl.constexpr, SINGLE: tl.constexpr,
                       BLOCK_I: tl.constexpr, BLOCK_L: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    o = pid // n_ib
    ii = (pid % n_ib) * BLOCK_I + tl.arange(0, BLOCK_I)
    i_ok = ii < inner
    base = o * L * inner + ii
    cols = tl.arange(0, BLOCK_L)
    if SINGLE:
        ok = i_ok[:, None] & (cols < L)[None, :]
        offs = base[:, None] + cols[None, :].to(tl.int64) * inner
        y = tl.load(y_ptr + offs, mask=ok, other=float("-inf"))
        if F64:
            y = y.to(tl.float64)
        m = tl.max(y, axis=1)
        e = tl.where(ok, tl.exp(y - m[:, None]), 0.0)
        lse = m + tl.log(tl.sum(e, axis=1))
        tl.store(o_ptr + offs, (y - lse[:, None]).to(o_ptr.dtype.element_ty), mask=ok)
    else:
        if F64:
            m = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float64)
            s = tl.zeros((BLOCK_I,), dtype=tl.float64)
        else:
            m = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float32)
            s = tl.zeros((BLOCK_I,), dtype=tl.float32)
        for l0 in range(0, L, BLOCK_L):
            cl = l0 + cols
            ok = i_ok[:, None] & (cl < L)[None, :]
            y = tl.load(y_ptr + base[:, None] + cl[None, :].to(tl.int64) * inner, mask=ok, other=float("-inf"))
            y = y.to(m.dtype)
            m_new = tl.maximum(m, tl.max(y, axis=1))
            s = s * tl.exp(m - m_new) + tl.sum(tl.where(ok, tl.exp(y - m_new[:, None]), 0.0), axis=1)
            m = m_new
        lse = m + tl.log(s)
        for l0 in range(0, L, BLOCK_L):
            cl = l0 + cols
            ok = i_ok[:, None] & (cl < L)[None, :]
            offs = base[:, None] + cl[None, :].to(tl.int64) * inner
            y = tl.load(y_ptr + offs, mask=ok, other=0.0).to(m.dtype)
            tl.store(o_ptr + offs, (y - lse[:, None]).to(o_ptr.dtype.element_ty), mask=ok)


def fused_log_softmax_linear(input, weight, bias=None, dim=-1, dtype=None):
    N, K = weight.shape
    lead = tuple(input.shape[:-1])
    out_shape = lead + (N,)
    out_dtype = dtype if dtype is not None else input.dtype
    dev = input.device
    out = torch.empty(out_shape, dtype=out_dtype, device=dev)
    if out.numel() == 0:
        return out
    a = input.reshape(-1, K)
    M = a.shape[0]
    y = torch.empty(out_shape, dtype=torch.float32, device=dev)
    b = bias if bias is not None else y
    sb = bias.stride(0) if bias is not None else 0
    BLOCK_M = 128 if M >= 128 else max(16, triton.next_power_of_2(M))
    BLOCK_N = 128 if N >= 128 else max(16, triton.next_power_of_2(N))
    BLOCK_K = 64 if input.dtype == torch.float16 else 32
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    linear_kernel[grid](a, weight, b, y, M, N, K, *a.stride(), *weight.stride(), sb, HAS_BIAS=bias is not None,
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8,
                        num_warps=8 if BLOCK_M * BLOCK_N >= 128 * 128 else 4, num_stages=3)
    d = dim % len(out_shape)
    outer = 1
    for s in out_shape[:d]:
        outer *= s
    inner = 1
    for s in out_shape[d + 1:]:
        inner *= s
    L = out_shape[d]
    f64 = out_dtype == torch.float64
    BLOCK_I = 1 if inner == 1 else min(32, triton.next_power_of_2(inner))
    cap = (4096 if f64 else 8192) // BLOCK_I
    single = L <= cap
    BLOCK_L = triton.next_power_of_2(L) if single else min(cap, 4096)
    n_ib = triton.cdiv(inner, BLOCK_I)
    log_softmax_kernel[(outer * n_ib,)](y, out, L, inner, n_ib, F64=f64, SINGLE=single, BLOCK_I=BLOCK_I,
                                        BLOCK_L=BLOCK_L, num_warps=8 if BLOCK_I * BLOCK_L >= 4096 else 4)
    return out
