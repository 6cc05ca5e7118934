"""Math/reciprocal: elementwise 1 / x; integer inputs are promoted to float32."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.reciprocal(input)


def nonzero(shape, gen, mode="standard"):
    # normal values pushed 1e-3 away from zero: GPU randn yields exact zeros at 2^24 draws
    x = sample(shape, gen, mode)
    return torch.where(x < 0, x - 1e-3, x + 1e-3)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "domain_edges", Call(torch.tensor([0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1e-30, -1e-30, 3e38, 0.5]))
    yield "ramp", Call(torch.linspace(-10.0, 10.0, 1000))
    yield "int32", Call(torch.tensor([0, 1, -1, 2, -3, 7, 1000, -65536], dtype=torch.int32))
    yield "int64_matrix", Call(randint((17, 33), gen, -100, 100))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(nonzero((65_537,), gen, mode))
    yield "matrix", Call(nonzero((129, 257), gen, mode) * 1e3)
    yield "batch", Call(nonzero((4, 31, 127), gen, mode))
    # nonzero int32 of every magnitude up to 2^31 (promoted to float32 by rounding, as torch does)
    magnitude = randint((1001,), gen, 1, 2**31 - 1, dtype=torch.int32)
    yield "int32", Call(torch.where(randint((1001,), gen, 0, 2, dtype=torch.int32) == 0, -magnitude, magnitude))


def perf_cases(gen):
    yield "n2^16", Call(nonzero((1 << 16,), gen))
    yield "n2^24", Call(nonzero((1 << 24,), gen))
    yield "n2^27", Call(nonzero((1 << 27,), gen))


TASK = Task(
    id="Math/reciprocal",
    entry="reciprocal",
    signature="reciprocal(input: Tensor) -> Tensor",
    description="Returns 1 / x for every element x of `input`, as a new tensor of the same shape. Floating inputs "
                "keep their dtype; integer inputs (int32, int64) are promoted to float32 (torch's default dtype) "
                "before dividing, so integer 0 gives +inf. IEEE edge behaviour: 1/(+0) = +inf, 1/(-0) = -inf, "
                "1/(±inf) = ±0, NaN stays NaN. (torch's `out=` argument is not part of the task.)",
    math=r"y_i = 1 / x_i",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int32/int64, promoted) of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 inputs only", "float32 inputs plus int32/int64 inputs (promoted to "
                  "float32)", "torch.reciprocal promotes integer tensors to the default float dtype; the int32 "
                  "cases reach 2^31, where the promotion rounds"),
        sweep_subset(extra_reason="values are N(0,1) pushed 1e-3 away from zero (GPU randn yields exact zeros at "
                                  "2^24 draws, and 1/0 is not what the timing is about)"),
    ),
)
