"""Math/exp_sqrt: sqrt(exp(x)) elementwise, with exp's float32 overflow."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(torch.exp(input))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([0.0, 1.0, 2.0, 3.0]))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "example_mixed", Call(torch.tensor([-1.0, 0.5, 5.0, -3.0]))
    yield "overflow", Call(torch.tensor([80.0, 88.0, 88.5, 89.0, 100.0, 170.0, 1e30, inf]))
    yield "underflow", Call(torch.tensor([-80.0, -100.0, -104.0, -200.0, -1e30, -inf, nan, -0.0]))
    yield "ramp", Call(torch.linspace(-20.0, 20.0, 2001))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/exp_sqrt",
    entry="exp_sqrt",
    signature="exp_sqrt(input: Tensor) -> Tensor",
    description="Returns sqrt(exp(x)) of every element as a new float32 tensor of the input's shape, with the "
                "float32 semantics of doing exp first: exp(x) overflows to +inf for x > ~88.72, so the result "
                "is +inf there (even though e^(x/2) would still be finite), and exp(x) underflows to 0 for very "
                "negative x, giving 0. +inf → +inf, −inf → 0, NaN → NaN. (torch's `out=` argument is not part "
                "of the task.)",
    math=r"\text{out}_i = \sqrt{e^{\text{input}_i}}",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(
        Deviation(Kind.COVERAGE, "small fixed vectors and random N(0, 1) inputs",
                  "adds the overflow of exp (x > 88.72 gives +inf), underflow, ±inf, NaN, empty and size-1 dimensions; random inputs of 65 537, 129×257 and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
