"""Math/gammaln: ln|Γ(x)|, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.gammaln(input)


def off_poles(x: torch.Tensor) -> torch.Tensor:
    """Moves values within 1e-3 of a pole (0, −1, −2, ...) 2e-3 to the right, so stage 2 stays finite."""
    near = (x < 0.5) & ((x - x.round()).abs() < 1e-3)
    return torch.where(near, x + 2e-3, x)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.arange(0.5, 2.0, 0.5))
    yield "poles", Call(torch.tensor([0.0, -0.0, -1.0, -2.0, -50.0, -1e30, -inf, inf, nan]))
    yield "roots", Call(torch.tensor([1.0, 2.0, 0.999, 1.001, 1.999, 2.001, 1.5, 1.4616321]))
    yield "positive", Call(torch.linspace(0.01, 40.0, 4000))
    yield "negative", Call(torch.arange(-9.95, 0.0, 0.1, dtype=torch.float64).float())
    yield "tiny_and_large", Call(torch.tensor([1e-30, 1e-10, -1e-10, 100.0, 1e4, 1e10, 1e30]))
    yield "matrix", Call(off_poles(sample((33, 65), gen) * 3))


def random_cases(gen, mode):
    yield "vector", Call(off_poles(sample((65_537,), gen, mode)))
    yield "matrix", Call(off_poles(sample((129, 257), gen, mode) * 3))
    yield "positive", Call(sample((4, 31, 127), gen, mode).abs() * 10 + 1e-3)
    # magnitudes e^±40 (positive) and e^±9 (negative, where float32 still resolves a 1e-3 step off the poles):
    # tiny arguments (ln Γ ≈ −ln|x|), huge ones, far negative non-integers
    exponent = sample((2, 1001), gen, mode) * 12
    negative = sample((2, 1001), gen) < 0
    magnitude = torch.exp(torch.where(negative, exponent.clamp(-9.0, 9.0), exponent.clamp(-40.0, 40.0)))
    yield "wide", Call(off_poles(torch.where(negative, -magnitude, magnitude)))


def perf_cases(gen):
    yield "n2^16", Call(off_poles(sample((1 << 16,), gen)))
    yield "n2^24", Call(off_poles(sample((1 << 24,), gen)))
    yield "n2^27", Call(off_poles(sample((1 << 27,), gen)))


TASK = Task(
    id="Math/gammaln",
    entry="gammaln",
    signature="gammaln(input: Tensor) -> Tensor",
    description="Returns ln|Γ(x)| (torch.lgamma) of every element as a new float32 tensor of the input's shape. "
                "It is +inf at the poles x = 0, −1, −2, ... (every float32 ≤ −2^23 is one), at ±inf and once it "
                "overflows float32; NaN stays NaN. It is 0 at x = 1 and x = 2. Negative non-integers are "
                "finite: use the reflection ln|Γ(x)| = ln(π/|sin(πx)|) − ln|Γ(1 − x)|. For positive x use e.g. "
                "Stirling's series with an upward shift for small x (keep accuracy near the roots 1 and 2). "
                "(torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \ln\left|\Gamma(\text{input}_i)\right|",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="fp32 tolerance: a careful fp32 evaluation (Stirling or Lanczos with the "
                            "reflection) is within ~1e-6 absolute near the roots and a few ulp relative "
                            "elsewhere; stage-2 inputs keep at least 1e-3 from the poles."),
    flops=elementwise_flops(30),
    deviations=(sweep_subset(extra_reason="values are N(0,1) kept 1e-3 away from the poles, so every result is "
                                          "finite"),),
)
