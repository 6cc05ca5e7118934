"""Fusion/fused_add_mul_groupnorm: (x + y)·y, then group normalization with an affine transform."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input1: torch.Tensor, input2: torch.Tensor, weight, bias, num_groups: int,
              eps: float = 1e-5) -> torch.Tensor:
    m = torch.mul(torch.add(input1, input2), input2)
    return F.group_norm(m, num_groups, weight, bias, eps)


def bind(input1, input2, weight, bias, num_groups, eps=1e-5):
    return input1, input2, weight, bias, num_groups, eps


def error_bound(call: Call) -> torch.Tensor:
    """normalized_bound over each (sample, group), m = (x + y)·y carrying the rounding of either association
    (x·y + y² cancels where x ≈ −y)."""
    x, y, weight, bias, groups, eps = bind(*call.args, **call.kwargs)
    x, y = x.double(), y.double().broadcast_to(x.shape)
    m = (x + y) * y
    dm = 2 * sb.E32 * (m.abs() + (x * y).abs() + y * y)
    n, c = x.shape[:2]
    grouped = (n, groups, c // groups, -1)
    affine = (1, groups, c // groups, 1)
    bound = sb.normalized_bound(m.reshape(grouped), dm.reshape(grouped), (2, 3), eps,
                                None if weight is None else weight.reshape(affine),
                                None if bias is None else bias.reshape(affine))
    return bound.reshape(x.shape)


def fixed_cases(gen):
    yield "example", Call(sample((2, 4, 5, 5), gen), sample((2, 4, 5, 5), gen), torch.ones(4), torch.zeros(4), 2)
    yield "affine", Call(sample((2, 6, 3, 7), gen), sample((2, 6, 3, 7), gen), sample((6,), gen), sample((6,), gen), 3)
    yield "channel_broadcast", Call(sample((3, 8, 4, 4), gen), sample((1, 8, 1, 1), gen), sample((8,), gen),
                                    sample((8,), gen), 4)
    yield "no_affine_3d", Call(sample((2, 6, 10), gen), sample((2, 6, 10), gen), None, None, 6)
    yield "one_group_large_eps", Call(sample((2, 4, 3, 3), gen), sample((2, 4, 3, 3), gen), sample((4,), gen),
                                      sample((4,), gen), 1, 0.5)
    yield "zero_y_gives_bias", Call(sample((2, 4, 3, 3), gen), torch.zeros(2, 4, 3, 3), sample((4,), gen),
                                    sample((4,), gen), 2)
    yield "weight_only", Call(sample((2, 6, 5), gen), sample((2, 6, 5), gen), sample((6,), gen), None, 2)
    yield "bias_only_large_mean", Call(sample((2, 4, 9), gen) * 0.01 + 30.0, torch.full((2, 4, 9), 2.0), None,
                                       sample((4,), gen), 4)
    # σ² ≈ 1e-6, below the default eps = 1e-5 (not passed): eps dominates the scale, so its value shows.
    yield "variance_below_default_eps", Call(sample((2, 6, 5, 5), gen) * 0.1, sample((2, 6, 5, 5), gen) * 0.01,
                                             sample((6,), gen), sample((6,), gen), 3)


def random_cases(gen, mode):
    yield "n4_c32_33x17", Call(sample((4, 32, 33, 17), gen, mode), sample((4, 32, 33, 17), gen, mode),
                               sample((32,), gen, mode), sample((32,), gen, mode), 8)
    yield "n2_c12_rows_broadcast_eps", Call(sample((2, 12, 129, 41), gen, mode), sample((12, 1, 41), gen, mode),
                                            sample((12,), gen, mode), sample((12,), gen, mode), 3, 1e-3)
    yield "n8_c64_seq", Call(sample((8, 64, 150), gen, mode), sample((8, 64, 150), gen, mode),
                             sample((64,), gen, mode), sample((64,), gen, mode), 16)


def perf_cases(gen):
    for n, w in ((8, 64), (16, 1024), (16, 2048)):
        yield f"n{n}_c64_128x{w}", Call(sample((n, 64, 128, w), gen), sample((n, 64, 128, w), gen),
                                        sample((64,), gen), sample((64,), gen), 8)


TASK = Task(
    id="Fusion/fused_add_mul_groupnorm",
    entry="fused_add_mul_groupnorm",
    signature="fused_add_mul_groupnorm(input1: Tensor, input2: Tensor, weight: Tensor | None, bias: Tensor | None, "
              "num_groups: int, eps: float = 1e-5) -> Tensor",
    description="Computes M = (input1 + input2) · input2 elementwise (input2 broadcasts to input1's shape "
                "(N, C, *)), then group normalization: the C channels are split into num_groups contiguous groups "
                "(num_groups divides C); for each sample n and group g, the mean μ and biased variance σ² are taken "
                "over all of that group's channels and positions, and out = (M − μ)/sqrt(σ² + eps) · weight[c] + "
                "bias[c] (weight/bias of shape (C,); None means 1/0). Output float32 with input1's shape.",
    math=r"M = (X + Y) \odot Y,\quad O = \frac{M - \mu_{n,g}}{\sqrt{\sigma^2_{n,g} + \epsilon}}\,\gamma_c + \beta_c",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input1, input2, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound=sb.NORM_TEXT + "; here m = (x + y)·y with δm = 2ε(|m| + |x·y| + y²), statistics over "
                                           "each sample's group",
                      notes="Group statistics in fp32 (two-pass, Welford or merged partial moments; split "
                            "reductions are fine)."),
    error_bound=error_bound,
    flops=elementwise_flops(10),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through the "
                  "group mean, variance and normalization, with rtol 1e-5",
                  "a fixed atol ignores the group size and the cancellation around a large group mean; the "
                  "bound follows both and stays well below a wrong statistic"),
        Deviation(Kind.PERF, "8 sizes, (16, 64, 128, W) with W = 64 … 8192, 8 groups",
                  "W = 1024 and 2048, and (8, 64, 128, 64) as the small case",
                  "two of upstream's sizes; the small case is half of upstream's smallest, which is just above the "
                  "size of a first perf case the self-check builds on the CPU. W = 8192 (4.3 GB per tensor) was "
                  "dropped: judging its whole output against the float64 error bound needs ~60 GB of host memory "
                  "per judgement, and on the H200 the candidate was killed for memory while it was judged"),
    ),
)
