"""Math/rad2deg_sqrt: two outputs from one input, radians to degrees and the square root."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.rad2deg(input), torch.sqrt(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "edges", Call(torch.tensor([0.0, -0.0, -1.0, inf, -inf, nan, 3.142, 1.570, 0.785, 1e-30, 3e38]))
    yield "ramp", Call(torch.linspace(0.0, 6.2832, 1001))
    yield "mixed_signs", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs())
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 100)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs())


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs())
    yield "n2^24", Call(sample((1 << 24,), gen).abs())
    yield "n2^27", Call(sample((1 << 27,), gen).abs())


TASK = Task(
    id="Math/rad2deg_sqrt",
    entry="rad2deg_sqrt",
    signature="rad2deg_sqrt(input: Tensor) -> tuple[Tensor, Tensor]",
    description="Returns a tuple (degrees, root) of two new tensors with the shape and dtype of `input`: "
                "degrees = x · 180/π (torch.rad2deg) and root = sqrt(x) (torch.sqrt), elementwise. Both outputs "
                "follow IEEE rules: rad2deg keeps ±inf and NaN (and overflows to ±inf past float32's range), "
                "sqrt gives NaN for x < 0, ±0 for ±0 and +inf for +inf.",
    math=r"\text{deg}_i = x_i \cdot \frac{180}{\pi},\quad \text{root}_i = \sqrt{x_i}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; both outputs float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(sweep_subset(extra_reason="values are |N(0,1)| (upstream's randn makes half of the roots NaN)"),),
)
