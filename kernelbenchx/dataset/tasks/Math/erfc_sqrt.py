"""Math/erfc_sqrt: the complementary error function and the square root of one tensor, as a pair."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.special.erfc(input), torch.sqrt(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([0.0, -1.0, 10.0, 0.25]))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen).abs() * 3)
    yield "ramp", Call(torch.linspace(-5.0, 12.0, 1701))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, -0.0, 0.0]))
    yield "extremes", Call(torch.tensor([1e-30, 1e-10, 3e38, 1e30, -1e-30, 4.0, 9.5]))
    yield "matrix_signed", Call(sample((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode).abs())
    yield "matrix", Call(sample((129, 257), gen, mode).abs() * 2)
    yield "batch", Call(sample((4, 31, 127), gen, mode).abs())


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen).abs())
    yield "n2^24", Call(sample((1 << 24,), gen).abs())
    yield "n2^27", Call(sample((1 << 27,), gen).abs())


TASK = Task(
    id="Math/erfc_sqrt",
    entry="erfc_sqrt",
    signature="erfc_sqrt(input: Tensor) -> tuple[Tensor, Tensor]",
    description="Returns a tuple of two new float32 tensors of the input's shape: (1) the complementary error "
                "function erfc(x) = 1 − erf(x) of every element (erfc(−inf) = 2, erfc(+inf) = 0, NaN → NaN; "
                "it underflows towards 0 for large positive x), and (2) sqrt(x) of every element (NaN for "
                "x < 0 and for NaN, sqrt(±0) = ±0, sqrt(inf) = inf). Both are read from the same input.",
    math=r"\mathrm{erfc}(x) = 1 - \frac{2}{\sqrt{\pi}} \int_{0}^{x} e^{-t^2}\,dt,\quad s_i = \sqrt{x_i}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; both outputs float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(16),
    deviations=(
        Deviation(Kind.COVERAGE, "small fixed vectors (negatives included) and |N(0, 1)| 64×64 random inputs",
                  "adds ±inf, NaN, ±0, huge and tiny values, a signed ramp, empty and size-1 dimensions; random |N(0, 1)| inputs of 65 537, 129×257 (×2) and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        sweep_subset(kbx="1-D inputs of 2^16, 2^24 and 2^27 elements, |N(0, 1)|"),
    ),
)
