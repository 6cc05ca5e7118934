"""Normalization/batch_norm: per-channel batch normalization, with batch or running statistics."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform
from kernelbenchx.dataset import bounds as _bounds

EPS = _bounds.EPS32


def reference(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
              momentum: float = 0.1, eps: float = 1e-5) -> torch.Tensor:
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def bind(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return input, running_mean, running_var, weight, bias, training, momentum, eps


def error_bound(call: Call):
    """(B_y, B_running_mean, B_running_var). Training: the channel statistics carry B_mean and B_var (biased
    variance) from _bounds; 1/√(var + eps) then carries B_var/(2(var + eps)) relative. The output
    y = (x − μ)·inv·w + b carries |w|·inv·(B_mean + |x − μ|·B_var/(2(var + eps))) plus the rounding of its
    elementwise steps, 2ε·((|x| + |μ|)·inv·|w| + |b| + |y|), plus one output ulp (2⁻¹⁰·|y| + 2⁻²⁴) for float16."""
    x, rm, rv, w, b, training, momentum, eps = bind(*call.args, **call.kwargs)
    c = x.shape[1]
    view = [1, c] + [1] * (x.dim() - 2)
    dims = tuple(d for d in range(x.dim()) if d != 1)
    x64 = x.double()
    n = x.numel() // max(c, 1)
    if training:
        var, b_var = _bounds.var_bound(x64, dims, correction=0, keepdim=True)
        mean = x64.mean(dims, keepdim=True)
        b_mean = _bounds.mean_bound(x64, dims, keepdim=True)
    else:
        mean, var = rm.double().view(view), rv.double().view(view)
        b_mean, b_var = torch.zeros_like(mean), torch.zeros_like(var)
    w64 = torch.ones(view, dtype=torch.float64) if w is None else w.double().view(view)
    b64 = torch.zeros(view, dtype=torch.float64) if b is None else b.double().view(view)
    inv = (var + eps).rsqrt()
    y = (x64 - mean) * inv * w64 + b64
    b_y = (w64.abs() * inv * (b_mean + (x64 - mean).abs() * b_var / (2 * (var + eps)))
           + 2 * EPS * ((x64.abs() + mean.abs()) * inv * w64.abs() + b64.abs() + y.abs()))
    if x.dtype == torch.float16:
        b_y = b_y + 2.0 ** -10 * y.abs() + 2.0 ** -24
    if not (training and rm is not None):
        return b_y, torch.zeros(()), torch.zeros(())  # running statistics untouched (or None): compared exactly
    mean, var, b_mean, b_var = (t.reshape(c) for t in (mean, var, b_mean, b_var))
    unbiased = n / max(n - 1, 1)
    b_rm = momentum * b_mean + 2 * EPS * ((1 - momentum) * rm.double().abs() + momentum * mean.abs())
    b_rv = momentum * b_var * unbiased + 2 * EPS * ((1 - momentum) * rv.double().abs() + momentum * var * unbiased)
    return b_y, b_rm, b_rv


def flip(gen) -> bool:
    return bool(torch.randint(2, (), generator=gen))


def case(shape, gen, mode="standard", weight=True, bias=True, stats=True, dtype=torch.float32, **kw):
    c = shape[1]
    x = (2.0 * sample(shape, gen, mode) + 0.5).to(dtype)
    mean, var = (sample((c,), gen), uniform((c,), gen, 0.5, 2.0)) if stats else (None, None)
    return Call(x, mean, var, sample((c,), gen) if weight else None, sample((c,), gen) if bias else None, **kw)


def fixed_cases(gen):
    yield "eval", case((4, 3, 5, 7), gen)
    yield "train_updates_stats", case((4, 3, 5, 7), gen, training=True)
    yield "train_no_stats", case((8, 6, 9), gen, stats=False, training=True)
    yield "no_affine", case((16, 5), gen, weight=False, bias=False, training=True, momentum=0.3)
    yield "eval_no_affine", case((2, 7, 3, 3), gen, weight=False, bias=False, eps=1e-3)
    yield "weight_only_train", case((6, 4, 11), gen, bias=False, training=True)
    yield "bias_only_eval", case((3, 5, 4, 4), gen, weight=False)
    yield "large_eps", case((3, 4, 6, 6), gen, training=True, eps=0.5, momentum=1.0)
    yield "volumetric", case((2, 3, 4, 5, 6), gen, training=True, momentum=0.0)
    const = torch.ones(4, 3, 2, 2) * torch.tensor([1.0, -2.0, 0.0]).view(1, 3, 1, 1)
    yield "constant_channels", Call(const, torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3), True)
    yield "large_mean_train", Call(sample((8, 4, 33), gen) + 300.0, torch.zeros(4), torch.ones(4), None, None, True)
    yield "float16_train", case((4, 6, 9, 5), gen, dtype=torch.float16, training=True)
    yield "float16_eval", case((2, 8, 7, 3), gen, dtype=torch.float16, weight=False)
    # the input is a contiguous prefix of a longer buffer: finite values follow it in memory
    x = (2.0 * sample((700,), gen) + 0.5)[:600].view(3, 4, 50)
    yield "eval_buffer_prefix", Call(x, sample((4,), gen), uniform((4,), gen, 0.5, 2.0), sample((4,), gen),
                                     sample((4,), gen))
    # running statistics as every other element of a finite buffer (stride 2), read in eval mode and
    # updated in place in training mode
    for training in (False, True):
        mean, var = sample((10,), gen)[::2], uniform((10,), gen, 0.5, 2.0)[::2]
        yield f"strided_stats_{'train' if training else 'eval'}", Call(
            2.0 * sample((3, 5, 4, 6), gen) + 0.5, mean, var, sample((5,), gen), sample((5,), gen), training)


def random_cases(gen, mode):
    w, b = flip(gen), flip(gen)
    yield "train_4d", case((32, 31, 17, 13), gen, mode, weight=w, bias=b, training=True)
    yield "train_2d", case((257, 129), gen, mode, weight=b, bias=w, training=True, momentum=0.05)
    yield "train_3d_no_affine", case((8, 61, 511), gen, mode, weight=False, bias=False, training=True, eps=1e-3)
    yield "eval_4d", case((16, 64, 15, 17), gen, mode, weight=not w, bias=b)
    yield "float16", case((16, 32, 20, 21), gen, mode, weight=w, bias=not b, dtype=torch.float16,
                          training=flip(gen))


def perf_cases(gen):
    # upstream: eval mode on float16 (32, 32, 640 … 1536, 128) with float32 statistics and affine parameters
    # (plus a small first case: the self-check runs the first perf case on the CPU)
    for h in (64, 640, 1024, 1536):
        n = 2 if h == 64 else 32
        yield f"eval_{n}x32x{h}x128_fp16", case((n, 32, h, 128), gen, dtype=torch.float16)


TASK = Task(
    id="Normalization/batch_norm",
    entry="batch_norm",
    signature="batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, "
              "weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, "
              "momentum: float = 0.1, eps: float = 1e-5) -> Tensor",
    description="torch.nn.functional.batch_norm for input of shape (N, C, *) (rank 2 to 5), per channel c. "
                "training=False: y = (x − running_mean[c]) / √(running_var[c] + eps) · weight[c] + bias[c], and "
                "the running statistics are not touched. training=True: mean and biased variance of channel c are "
                "taken over all N·(spatial) elements; y = (x − mean) / √(var + eps) · weight + bias; and when the "
                "running statistics are given they are updated in place: running_mean ← (1 − momentum)·"
                "running_mean + momentum·mean, running_var ← (1 − momentum)·running_var + momentum·var_unbiased "
                "(variance with divisor count − 1). running_mean/running_var may be None only when training. "
                "weight and bias are independent: weight None means 1, bias None means 0. The input is float32 or "
                "float16; statistics, weight and bias are float32 either way, the arithmetic is float32, and the "
                "output has the input's dtype and shape (a new tensor).",
    math=r"y = \frac{x - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}}\,\gamma_c + \beta_c;\ "
         r"\hat\mu \leftarrow (1-m)\hat\mu + m\mu_c,\ \hat\sigma^2 \leftarrow (1-m)\hat\sigma^2 + m\,\sigma^2_{c,\mathrm{unbiased}}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or float16 (N, C, *); running_mean, running_var, weight, bias float32 "
                             "(C,) or None; output of the input's dtype",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"), mutates=(1, 2),
                      bound="with μ, var the channel statistics (running ones in eval mode, where B_mean = B_var = "
                            "0), inv = 1/√(var + eps): B_y = |w|·inv·(B_mean + |x − μ|·B_var/(2(var + eps))) + "
                            "2ε·((|x| + |μ|)·inv·|w| + |b| + |y|) (+ 2⁻¹⁰·|y| + 2⁻²⁴ for float16 outputs); "
                            "running_mean: momentum·B_mean + 2ε·(|(1 − m)·running_mean| + |m·μ|); running_var: "
                            "momentum·B_var·n/(n − 1) + 2ε·(|(1 − m)·running_var| + m·var_unbiased); where "
                            "B_mean and B_var are the channel mean's and biased variance's (correction 0) bounds, "
                            + _bounds.MOMENTS_TEXT + ", and " + _bounds.SUM_TEXT,
                      notes="In training mode the running statistics (arguments 1 and 2) are updated in place and "
                            "compared. Statistics may be accumulated in any order (Welford/Chan merges, atomics, "
                            "split reductions); use a stable variance, not E[x²] − E[x]²."),
    error_bound=error_bound,
    flops=lambda call, out: 7.0 * out.numel(),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (float32 outputs)",
                  "an accumulation bound on the channel statistics carried into the output and the running "
                  "statistics (see the contract) plus rtol 1e-5",
                  "statistics over up to 6·10⁶ elements per channel round far beyond a fixed 1e-5 when the data "
                  "has a large mean; the bound admits any summation order and rejects fp16/bf16 accumulation and "
                  "the one-pass variance (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "float32 (2, 3, 4, 4) and (4, 8, 16, 16) inputs",
                  "adds float16 inputs (upstream's perf dtype), weight and bias given independently, no running "
                  "statistics, rank 2, 3 and 5 inputs, a large mean, eps and momentum extremes",
                  "the signature promises them; independent affine parameters catch kernels that assume both"),
        Deviation(Kind.COVERAGE, "inputs that own their whole, contiguous storage",
                  "adds an input that is a contiguous prefix of a longer buffer and running statistics that "
                  "are stride-2 views of finite buffers (eval and training)",
                  "a kernel that stores one element past the end writes a finite value into the output's "
                  "guard band; a kernel that reads or updates the statistics as if contiguous gets other "
                  "finite values (the generated layout cases fill the gaps with NaN and use momentum 0)"),
        Deviation(Kind.PERF, "8 float16 sizes (32, 32, 640 … 1536, 128), eval mode",
                  "float16 (32, 32, 640 | 1024 | 1536, 128), eval mode, after a small (2, 32, 64, 128) case",
                  "a subset of upstream's sizes; the small case is the one the CPU self-check can run"),
    ),
)
