"""Math/trunc: round toward zero elementwise (exact)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.trunc(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "edges", Call(torch.tensor([0.0, -0.0, 0.5, -0.5, 0.999999, -0.999999, 1.0, -1.0, 2.5, -2.5,
                                      inf, -inf, nan, 1e-30]))
    # beyond int32 range and beyond 2^23, where every float32 is already an integer
    yield "large", Call(torch.tensor([8388607.5, -8388607.5, 16777217.0, 2.5e9, -2.5e9, 1e20, -3e38, 3e38]))
    yield "ramp", Call(torch.linspace(-20.0, 20.0, 1001))
    yield "int32_copy", Call(randint((7, 33), gen, -1000, 1000, dtype=torch.int32))
    yield "matrix", Call(sample((33, 65), gen) * 10)
    yield "scalar_0d", Call(torch.tensor(-7.75))
    yield "empty", Call(torch.empty(3, 0))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode) * 10)
    yield "matrix", Call(sample((129, 257), gen, mode) * 1e4)
    yield "batch", Call(sample((4, 31, 127), gen, mode))
    # magnitudes past 2^31 (an int32 round trip overflows) and integers past 2^24 (a float32 copy rounds them)
    yield "huge", Call(sample((1001,), gen, mode) * 1e10)
    yield "int32", Call(randint((7, 999), gen, -2**31, 2**31 - 1, dtype=torch.int32))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen) * 10)
    yield "n2^24", Call(sample((1 << 24,), gen) * 10)
    yield "n2^27", Call(sample((1 << 27,), gen) * 10)


TASK = Task(
    id="Math/trunc",
    entry="trunc",
    signature="trunc(input: Tensor) -> Tensor",
    description="Returns a new tensor with every element of `input` rounded toward zero to an integral value "
                "(3.7 → 3, -0.8 → -0), in the input's shape and dtype. Must be exact for every float32, "
                "including magnitudes beyond the int32 range; ±inf and NaN are returned unchanged. Integer "
                "inputs are returned as an unchanged copy (same dtype). (torch's `out=` argument is not part of "
                "the task.)",
    math=r"y_i = \operatorname{sign}(x_i)\,\lfloor |x_i| \rfloor",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32, copied) of any shape; output same dtype and shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Truncation is exact, so the result must match bit for bit (the sign of zero is "
                            "not checked)."),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 inputs only", "float32 inputs plus int32 inputs (copied unchanged), "
                  "0-d and empty tensors", "torch.trunc accepts integer tensors and returns them unchanged; the "
                  "int32 cases hold values beyond 2^24, which a copy through float32 would round"),
        sweep_subset(extra_reason="values are N(0,1)·10 so most elements are not in (−1, 1)"),
    ),
)
