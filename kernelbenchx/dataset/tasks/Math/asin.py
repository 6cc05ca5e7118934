"""Math/asin: elementwise arcsine, NaN outside [-1, 1]."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.asin(input)


def in_domain(shape, gen, mode="standard"):
    """Values in [-1, 1], dense near the endpoints where asin is steep (outliers land on ±1)."""
    return torch.tanh(sample(shape, gen, mode))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "zeros", Call(torch.zeros(9))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(in_domain((1, 129, 1), gen))
    yield "edges", Call(torch.tensor([-1.0, -0.99999994, -0.5, -0.0, 0.0, 1e-30, 0.5, 0.99999994, 1.0]))
    yield "outside", Call(torch.tensor([-1.0000001, 1.0000001, -2.0, 2.0, -inf, inf, nan, 1e30]))
    yield "ramp", Call(torch.linspace(-1.0, 1.0, 2001))
    yield "ramp_wide", Call(torch.linspace(-1.5, 1.5, 301))
    yield "randn", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(in_domain((65_537,), gen, mode))
    yield "matrix", Call(in_domain((129, 257), gen, mode))
    yield "batch", Call(in_domain((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(in_domain((1 << 16,), gen))
    yield "n2^24", Call(in_domain((1 << 24,), gen))
    yield "n2^27", Call(in_domain((1 << 27,), gen))


TASK = Task(
    id="Math/asin",
    entry="asin",
    signature="asin(input: Tensor) -> Tensor",
    description="Returns the arcsine of every element (radians, in [−π/2, π/2]) as a new float32 tensor of the "
                "input's shape. asin(±1) = ±π/2 and asin(±0) = ±0; inputs outside [−1, 1] (including ±inf) "
                "and NaN give NaN. asin is steep near ±1, so evaluate it accurately there (e.g. via "
                "π/2 − 2·asin(sqrt((1 − |x|)/2))). (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \sin^{-1}(\text{input}_i)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(15),
    deviations=(
        Deviation(Kind.COVERAGE, "fixed values in [-1, 1], an empty tensor, and tanh of 1024-element and 64×64 random inputs",
                  "adds values outside [-1, 1] and ±inf (NaN), the endpoints and their neighbours, size-1 dimensions; random inputs (tanh of N(0, 1)) of 65 537, 129×257 and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        sweep_subset(kbx="1-D inputs of 2^16, 2^24 and 2^27 elements, tanh of N(0, 1) (inside the domain)",
                     upstream="16 1-D fp32 inputs of 2^12 … 2^27 elements, times summed"),
    ),
)
