"""Fusion/fused_hardsigmoid_batch_norm: batch normalization (eval or training) followed by Hardsigmoid."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight=None, bias=None,
              training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> torch.Tensor:
    return F.hardsigmoid(F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps))


def bind(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return x, running_mean, running_var, weight, bias, training, momentum, eps


def error_bound(call: Call):
    """(output, running_mean, running_var): the normalization's bound (batch statistics in training, the
    buffers in eval) through Hardsigmoid (slope ≤ 1/6, plus its own rounding), and in training the buffers'
    update errors momentum·δμ and momentum·δσ²·n/(n − 1)."""
    x, rm, rv, weight, bias, training, momentum, eps = bind(*call.args, **call.kwargs)
    x = x.double()
    c = x.shape[1]
    shape = [1] * x.dim()
    shape[1] = c
    w = torch.ones(c, dtype=torch.float64) if weight is None else weight.double()
    b = torch.zeros(c, dtype=torch.float64) if bias is None else bias.double()
    w, b = w.reshape(shape), b.reshape(shape)
    if training:
        dims = tuple(d for d in range(x.dim()) if d != 1)
        norm = sb.normalized_bound(x, 0.0, dims, eps, w, b)
        n = sb.reduced_count(x, dims)
        _, _, dmu, dvar = sb.moment_errors(x, 0.0, dims)
        new_rm = (1 - momentum) * rm.double() + momentum * x.mean(dim=dims)
        new_rv = (1 - momentum) * rv.double() + momentum * x.var(dim=dims) if n > 1 else rv.double()
        b_rm = momentum * dmu.reshape(c) + 2 * sb.E32 * new_rm.abs()
        b_rv = momentum * dvar.reshape(c) * n / max(n - 1, 1) + 2 * sb.E32 * new_rv.abs()
    else:
        mu, var = rm.double().reshape(shape), rv.double().reshape(shape)
        r = (var + eps).rsqrt()
        t = (x - mu) * r * w
        norm = 2 * sb.E32 * (w.abs() * r * (x.abs() + mu.abs()) + t.abs() + b.abs())
        b_rm = b_rv = torch.zeros(c, dtype=torch.float64)
    return norm / 6 + 2 * sb.E32, b_rm, b_rv


def stats(c, gen, mode="standard"):
    """Running mean and (positive) running variance buffers for c channels."""
    return sample((c,), gen, mode) * 0.5, uniform((c,), gen, 0.5, 2.0)


def fixed_cases(gen):
    yield "eval_identity_stats", Call(sample((4, 3, 8, 8), gen) * 4, torch.zeros(3), torch.ones(3))
    yield "eval_affine", Call(sample((2, 5, 6, 7), gen), *stats(5, gen), sample((5,), gen), sample((5,), gen))
    yield "example_training", Call(sample((4, 3, 8, 8), gen), torch.zeros(3), torch.ones(3), torch.ones(3),
                                   torch.zeros(3), training=True)
    yield "training_2d_momentum", Call(sample((16, 6), gen) * 3 + 1, *stats(6, gen), sample((6,), gen) * 4,
                                       sample((6,), gen), True, 0.25)
    yield "eval_3d_eps", Call(sample((3, 4, 10), gen), *stats(4, gen), None, None, False, 0.1, 0.5)
    yield "saturating", Call(torch.linspace(-10.0, 10.0, 2 * 2 * 25).reshape(2, 2, 25), torch.zeros(2),
                             torch.ones(2), torch.tensor([1.0, 3.0]), torch.tensor([0.0, -1.0]))
    yield "training_weight_only_large_mean", Call(sample((8, 3, 5, 5), gen) + 50.0, *stats(3, gen),
                                                  sample((3,), gen) * 3, None, True, 0.5)
    yield "training_bias_only", Call(sample((5, 4, 7), gen), *stats(4, gen), None, sample((4,), gen), True)


def random_cases(gen, mode):
    yield "eval_n8_c64_17x23", Call(sample((8, 64, 17, 23), gen, mode) * 3, *stats(64, gen, mode),
                                    sample((64,), gen, mode), sample((64,), gen, mode))
    yield "training_n4_c32_31x33", Call(sample((4, 32, 31, 33), gen, mode) * 2 + 0.5, *stats(32, gen, mode),
                                        sample((32,), gen, mode) * 3, sample((32,), gen, mode), True, 0.2)
    yield "eval_seq_no_affine", Call(sample((16, 48, 100), gen, mode) * 3, *stats(48, gen, mode))
    yield "training_2d_no_affine", Call(sample((700, 96), gen, mode) * 2 - 1, *stats(96, gen, mode), None, None, True,
                                        0.3, 1e-3)


def perf_cases(gen):
    for h, w in ((128, 128), (1448, 1449)):
        yield f"eval_1x64x{h}x{w}", Call(sample((1, 64, h, w), gen), *stats(64, gen), sample((64,), gen),
                                         sample((64,), gen))
    yield "training_16x64x256x256", Call(sample((16, 64, 256, 256), gen), *stats(64, gen), sample((64,), gen),
                                         sample((64,), gen), True)


TASK = Task(
    id="Fusion/fused_hardsigmoid_batch_norm",
    entry="fused_hardsigmoid_batch_norm",
    signature="fused_hardsigmoid_batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, "
              "weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, "
              "momentum: float = 0.1, eps: float = 1e-5) -> Tensor",
    description="Batch normalization over channel dim 1 of x (N, C) or (N, C, *), then Hardsigmoid. With "
                "training=False, each channel uses the running buffers: z = (x − running_mean[c]) / "
                "sqrt(running_var[c] + eps). With training=True, each channel uses its batch statistics over N and "
                "all positions (mean μ and biased variance σ²) for z, and the buffers are updated IN PLACE: "
                "running_mean = (1 − momentum)·running_mean + momentum·μ and running_var = (1 − momentum)·"
                "running_var + momentum·σ²·n/(n − 1), n the per-channel element count. Then z·weight[c] + bias[c] "
                "(None means 1/0) and Hardsigmoid: clamp(t/6 + 1/2, 0, 1). Returns a new float32 tensor of x's "
                "shape. The upstream `inplace` argument (Hardsigmoid on a temporary) is dropped.",
    math=r"y = \mathrm{clamp}\!\left(\tfrac{1}{6}\left(\gamma_c\frac{x - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}} + "
         r"\beta_c\right) + \tfrac{1}{2},\ 0,\ 1\right)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="all tensors float32; output float32 with x's shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      mutates=(1, 2),
                      bound="for the output, B/6 + 2ε with B: " + sb.NORM_TEXT + " (statistics over N and "
                            "every position of a channel in training; in eval μ and σ² are the buffers and "
                            "B = 2ε(|w|·r·(|x| + |μ|) + |(x − μ)·r·w| + |b|)); for the updated buffers "
                            "momentum·δμ and momentum·δσ²·n/(n − 1) plus 2ε of their value (exact in eval)",
                      notes="running_mean and running_var are compared after the call: unchanged when "
                            "training=False, updated as described when training=True. Channel statistics may "
                            "be reduced in any order (split reductions are fine)."),
    error_bound=error_bound,
    flops=elementwise_flops(6),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through the "
                  "batch statistics, the normalization and the buffer updates, with rtol 1e-5",
                  "a fixed atol ignores the batch size and the cancellation around a large channel mean; the "
                  "bound follows both and stays well below a wrong statistic"),
        Deviation(Kind.PERF, "16 sizes, eval mode, (1, 64, H, W) from 8×8 to 1448×1449",
                  "eval at 128×128 and 1448×1449, plus training mode on (16, 64, 256, 256)",
                  "two of upstream's sizes, its largest included; training mode, which upstream never times, "
                  "needs a reduction over the batch"),
    ),
)
