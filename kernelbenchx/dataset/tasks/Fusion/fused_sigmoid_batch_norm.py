"""Fusion/fused_sigmoid_batch_norm: sigmoid of batch normalization over the channel dimension."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
              momentum: float = 0.1, eps: float = 1e-5) -> torch.Tensor:
    return torch.sigmoid(F.batch_norm(input, running_mean, running_var, weight, bias, training=training,
                                      momentum=momentum, eps=eps))


def bn_inputs(gen, mode, shape, stats=True, affine=True):
    """Input with per-channel offsets and scales, running statistics near them, and optional affine parameters."""
    c = shape[1]
    view = (1, c) + (1,) * (len(shape) - 2)
    offset, scale = sample((c,), gen) * 2.0, uniform((c,), gen, 0.5, 3.0)
    x = sample(shape, gen, mode) * scale.view(view) + offset.view(view)
    mean = offset + sample((c,), gen) * 0.1 if stats else None
    var = scale * scale * uniform((c,), gen, 0.8, 1.25) if stats else None
    gamma = uniform((c,), gen, 0.5, 1.5) if affine else None
    beta = sample((c,), gen) * 0.5 if affine else None
    return x, mean, var, gamma, beta


def fixed_cases(gen):
    yield "eval_2d", Call(*bn_inputs(gen, "standard", (20, 10)))
    yield "train_example", Call(*bn_inputs(gen, "standard", (20, 10)), True)
    yield "train_no_running_stats", Call(*bn_inputs(gen, "standard", (8, 6), stats=False), True)
    yield "eval_3d_no_affine", Call(*bn_inputs(gen, "standard", (4, 5, 7), affine=False))
    yield "train_3d_momentum", Call(*bn_inputs(gen, "standard", (3, 4, 9)), True, 0.3, 1e-3)
    yield "train_two_samples_momentum1", Call(*bn_inputs(gen, "standard", (2, 7)), True, 1.0)
    yield "eval_large_eps", Call(*bn_inputs(gen, "standard", (5, 3, 4)), eps=2.0)
    yield "train_constant_channel", Call(torch.ones(6, 3), torch.zeros(3), torch.ones(3), None, None, True)
    # Variances far below the default eps (centred data ~1e-3, so no cancellation): the normalized values scale
    # as 1/sqrt(var + eps), which exposes a wrong, dropped or misplaced eps, in both modes.
    yield "eval_tiny_var_default_eps", Call(sample((12, 5), gen) * 2e-3, sample((5,), gen) * 1e-3,
                                            uniform((5,), gen, 0.0, 2e-6), uniform((5,), gen, 0.5, 1.5),
                                            sample((5,), gen) * 0.5)
    yield "train_tiny_var_default_eps", Call(sample((16, 6), gen) * 1e-3, sample((6,), gen) * 1e-3,
                                             uniform((6,), gen, 0.0, 2e-6), uniform((6,), gen, 0.5, 1.5), None,
                                             True)


def random_cases(gen, mode):
    yield "train_2d", Call(*bn_inputs(gen, mode, (64, 300)), True)
    yield "eval_3d", Call(*bn_inputs(gen, mode, (16, 48, 67)))
    yield "train_3d_no_affine", Call(*bn_inputs(gen, mode, (8, 24, 129), affine=False), True, 0.2)
    # More samples than a batch-statistics kernel would split N into (515 = 2·257 + 1): a partial last split.
    yield "train_tall_partial_split", Call(*bn_inputs(gen, mode, (515, 6)), True)


def perf_cases(gen):
    yield "eval_32x4096", Call(*bn_inputs(gen, "standard", (32, 4096)))
    yield "eval_32x4194304", Call(*bn_inputs(gen, "standard", (32, 1 << 22)))
    yield "train_64x256x4096", Call(*bn_inputs(gen, "standard", (64, 256, 4096)), True)


def flops(call, out):
    return 8 * out.numel()


TASK = Task(
    id="Fusion/fused_sigmoid_batch_norm",
    entry="fused_sigmoid_batch_norm",
    signature="fused_sigmoid_batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, "
              "weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, "
              "momentum: float = 0.1, eps: float = 1e-5) -> Tensor",
    description="Applies batch normalization over channel dimension 1 of input ((N, C) or (N, C, L)) as "
                "torch.nn.functional.batch_norm, then sigmoid elementwise. training=False: y = (x − "
                "running_mean[c]) / sqrt(running_var[c] + eps) (running stats required). training=True: the "
                "mean and the biased variance of channel c over N (and L) are used instead, and when "
                "running_mean/running_var are given they are updated in place: running_mean = (1 − momentum)·"
                "running_mean + momentum·mean, running_var = (1 − momentum)·running_var + momentum·unbiased "
                "variance (count/(count − 1) times the biased one). Then y·weight[c] + bias[c] (each omitted "
                "when None), then 1/(1 + exp(−·)). Returns a new float32 tensor of the input's shape.",
    math=r"\mathrm{out} = \sigma\!\left(\frac{x - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}}\gamma_c + \beta_c\right)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, running stats, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      mutates=(1, 2),
                      notes="In training mode running_mean and running_var (positional arguments 1 and 2) must "
                            "hold the updated statistics afterwards; in eval mode they must be left unchanged. "
                            "Summation order of the batch statistics is free."),
    flops=flops,
    deviations=(
        Deviation(Kind.COVERAGE, "2-D inputs of 10×5 and 64×128, running statistics 0 and 1",
                  "adds 3-D (N, C, L) inputs, training without running statistics, no affine parameters, "
                  "momentum 0.2 … 1, large eps, a constant channel, and channel offsets and scales that running "
                  "statistics near the data's make visible",
                  "every argument of the signature; with zero means and unit variances a kernel that ignores "
                  "the statistics passes"),
        Deviation(Kind.PERF, "16 sizes, eval mode, 32 × 2^7 … 2^22 (2-D)",
                  "eval mode 32 × 2^12 and 32 × 2^22, and training mode on 64 × 256 × 4096",
                  "a subset spanning small to largest, plus the training path (batch statistics), which "
                  "upstream never times"),
    ),
)
