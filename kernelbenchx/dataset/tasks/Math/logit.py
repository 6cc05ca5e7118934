"""Math/logit: elementwise log(p / (1 − p)), optionally clamping p to [eps, 1 − eps] first."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor, eps: float | None = None) -> torch.Tensor:
    return torch.special.logit(input, eps=eps)


def probabilities(shape, gen, mode="standard", spread=0.3):
    # sigmoid of a scaled normal: strictly inside (0, 1) even for 10x outliers (|0.3 * 50| < 16.6)
    return torch.sigmoid(spread * sample(shape, gen, mode))


def fixed_cases(gen):
    nan = float("nan")
    edges = torch.tensor([0.0, 1.0, -0.0, -0.1, 1.1, -5.0, 0.5, nan, 1e-30, 1.0 - 2**-24, 0.25, 0.75])
    yield "domain_edges", Call(edges)
    yield "domain_edges_eps", Call(edges, eps=1e-6)
    yield "eps_zero", Call(edges, eps=0.0)
    yield "ramp", Call(torch.linspace(0.0, 1.0, 1001))
    yield "ramp_eps", Call(torch.linspace(-0.5, 1.5, 1001), 0.1)
    yield "matrix", Call(probabilities((33, 65), gen, spread=3.0))


def random_cases(gen, mode):
    yield "vector", Call(probabilities((65_537,), gen, mode))
    yield "matrix_eps", Call(torch.sigmoid(3.0 * sample((129, 257), gen, mode)), eps=0.01)
    yield "batch", Call(probabilities((4, 31, 127), gen, mode, spread=2.0), 1e-6)
    # values outside [0, 1] are clamped when eps is given: every result finite
    yield "out_of_range_eps", Call(uniform((7, 301), gen, -0.5, 1.5), eps=float(uniform((), gen, 0.0, 0.2)))


def perf_cases(gen):
    yield "n2^16", Call(probabilities((1 << 16,), gen))
    yield "n2^24", Call(probabilities((1 << 24,), gen))
    yield "n2^27_eps", Call(probabilities((1 << 27,), gen), eps=1e-6)


TASK = Task(
    id="Math/logit",
    entry="logit",
    signature="logit(input: Tensor, eps: float | None = None) -> Tensor",
    description="Returns the logit ln(z / (1 − z)) of every element of `input`, as a new tensor of the same shape "
                "and dtype. With eps=None, z = x: logit(0) = -inf, logit(1) = +inf, and x < 0 or x > 1 gives NaN. "
                "With a float eps (0 ≤ eps < 0.5), z = x clamped to [eps, 1 − eps] first (1 − eps rounded to "
                "float32), so every non-NaN input gives a finite result when eps > 0; NaN stays NaN in both modes. "
                "(torch's `out=` argument is not part of the task.)",
    math=r"y_i = \ln\frac{z_i}{1 - z_i},\quad z_i = \begin{cases} x_i & \text{eps is None} \\ "
         r"\min(\max(x_i, \text{eps}), 1 - \text{eps}) & \text{otherwise} \end{cases}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; eps a Python float or None; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(3),
    deviations=(sweep_subset("1-D inputs of 2^16 and 2^24 elements (eps=None) and of 2^27 elements (eps=1e-6)",
                             extra_reason="values are sigmoid(0.3·N(0,1)), inside (0, 1), where upstream's randn "
                                          "makes most results NaN; the largest size also times the clamp"),),
)
