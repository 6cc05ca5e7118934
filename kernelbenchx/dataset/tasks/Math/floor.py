"""Math/floor: elementwise floor (largest integer ≤ x); integer inputs are copied."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.floor(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([-0.8166, 1.5308, -0.2530, -0.2091]))
    yield "mixed", Call(torch.tensor([-2.5, -1.0, -0.5, -1e-30, -0.0, 0.0, 0.3, 1.0, 1.9999999, 2.5]))
    yield "large", Call(torch.tensor([8388607.5, -8388607.5, 8388608.0, -8388609.0, 1e20, -1e20, 3e38]))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, 0.5]))
    yield "ramp", Call(torch.linspace(-10.0, 10.0, 2001))
    yield "int32", Call(randint((257,), gen, -(1 << 30), 1 << 30, dtype=torch.int32))
    yield "scalar_0d", Call(torch.tensor(-2.5))
    yield "empty", Call(torch.empty(0, 7))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode) * 5)
    yield "matrix", Call(sample((129, 257), gen, mode) * 100)
    yield "batch", Call(sample((4, 31, 127), gen, mode))
    # integers beyond 2^24: a copy through float32 would round them
    yield "int32", Call(randint((3, 1001), gen, -2**31, 2**31 - 1, dtype=torch.int32))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen) * 5)
    yield "n2^24", Call(sample((1 << 24,), gen) * 5)
    yield "n2^27", Call(sample((1 << 27,), gen) * 5)


TASK = Task(
    id="Math/floor",
    entry="floor",
    signature="floor(input: Tensor) -> Tensor",
    description="Returns the floor of every element, the largest integer ≤ x, as a new tensor of the input's "
                "shape and dtype (float32 stays float32). floor(−0.5) = −1, floor(−0.0) = −0.0; values with "
                "|x| ≥ 2^23 are already integers and are returned unchanged, as are ±inf and NaN. For integer "
                "inputs (int32) the result is a copy of the input. (torch's `out=` argument is not part of "
                "the task.)",
    math=r"\text{out}_i = \left\lfloor \text{input}_i \right\rfloor",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32) of any shape; output the same dtype and shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="floor is exact in float32, so values must match exactly."),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 inputs only", "float32 inputs plus int32 inputs (copied unchanged), "
                  "0-d and empty tensors", "torch.floor accepts integer tensors and returns them unchanged; the "
                  "int32 cases hold values beyond 2^24, which a copy through float32 would round"),
        sweep_subset(extra_reason="values are N(0,1)·5 so most elements are not in (−1, 1)"),
    ),
)
