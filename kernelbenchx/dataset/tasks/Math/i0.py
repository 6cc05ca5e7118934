"""Math/i0: the modified Bessel function of the first kind of order 0, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.i0(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.arange(5, dtype=torch.float32))
    yield "ramp", Call(torch.linspace(-30.0, 30.0, 3001))
    yield "tiny", Call(torch.tensor([1e-30, -1e-10, 1e-4, -0.0, 0.01]))
    yield "large", Call(torch.tensor([50.0, -64.0, 80.0, -85.0, 88.0, 100.0, -200.0, 1e30]))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, 8.0]))
    yield "matrix", Call(sample((33, 65), gen) * 3)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))
    # both branches of a typical split at |x| ≈ 8 and the growth up to e^88 (below float32's overflow)
    yield "wide", Call(uniform((3, 1001), gen, -88.0, 88.0))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/i0",
    entry="i0",
    signature="i0(input: Tensor) -> Tensor",
    description="Returns the modified Bessel function of the first kind of order zero, I0(x), of every element "
                "as a new float32 tensor of the input's shape. I0 is even, I0(0) = 1 and it grows like "
                "e^|x|/sqrt(2π|x|); torch evaluates it as e^|x| times a correction, so the result is +inf once "
                "e^|x| overflows float32 (|x| ≳ 88.7; |x| ≥ 100 is tested, the band in between is not). As torch "
                "does, ±inf and NaN inputs give NaN. No Triton builtin exists: use e.g. Chebyshev or "
                "polynomial approximations of e^(−|x|)·I0(x) on |x| ≤ 8 and in 1/|x| beyond, in fp32. "
                "(torch's `out=` argument is not part of the task.)",
    math=r"I_0(x) = \sum_{k=0}^{\infty} \frac{(x^2/4)^k}{(k!)^2}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="fp32 tolerance: a careful fp32 evaluation (exp times a Chebyshev or polynomial "
                            "series) is within a few ulp; the reference itself is within ~5e-7 relative."),
    flops=elementwise_flops(25),
    deviations=(sweep_subset(),),
)
