"""Math/erf: the Gauss error function, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.erf(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([0.0, -1.0, 10.0]))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "ramp", Call(torch.linspace(-6.0, 6.0, 2401))
    yield "tiny", Call(torch.tensor([1e-30, -1e-10, 1e-5, -1e-3, -0.0]))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, 30.0, -1e30]))
    yield "matrix", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode) * 2)
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/erf",
    entry="erf",
    signature="erf(input: Tensor) -> Tensor",
    description="Returns the error function erf(x) = (2/√π)∫₀ˣ e^(−t²) dt of every element as a new float32 "
                "tensor of the input's shape. erf is odd, erf(±inf) = ±1 and NaN stays NaN; it reaches ±1 in "
                "float32 for |x| ≳ 3.9. (torch's `out=` argument is not part of the task.)",
    math=r"\mathrm{erf}(x) = \frac{2}{\sqrt{\pi}} \int_{0}^{x} e^{-t^2}\,dt",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="fp32 tolerance: erf has accurate fp32 approximations (rational or polynomial, a "
                            "few ulp), and the reference itself is within ~1e-7."),
    flops=elementwise_flops(15),
    deviations=(
        Deviation(Kind.COVERAGE, "small fixed vectors and random N(0, 1) inputs",
                  "adds ±inf, NaN, tiny and saturating |x|, empty and size-1 dimensions; random inputs of 65 537, 129×257 (×2) and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
