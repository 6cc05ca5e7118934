"""Math/digamma: the logarithmic derivative of the gamma function, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.digamma(input)


def off_poles(x: torch.Tensor) -> torch.Tensor:
    """Moves values within 1e-3 of a pole (0, −1, −2, ...) 2e-3 to the right, so stage 2 stays finite."""
    near = (x < 0.5) & ((x - x.round()).abs() < 1e-3)
    return torch.where(near, x + 2e-3, x)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "example", Call(torch.tensor([1.0, 0.5]))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen).abs() * 3 + 0.01)
    yield "poles", Call(torch.tensor([0.0, -0.0, -1.0, -2.0, -10.0, -1e30, -inf, inf, nan]))
    # odd integers past 2^23, where x + 0.5 is not representable
    yield "poles_past_2^23", Call(torch.tensor([-8388609.0, -8460577.0, -12345679.0, -16777215.0, -16777216.0]))
    yield "positive", Call(torch.linspace(0.01, 30.0, 3000))
    yield "negative", Call(torch.arange(-9.95, 0.0, 0.1, dtype=torch.float64).float())
    yield "near_poles", Call(torch.tensor([1e-30, 1e-6, -1e-6, -0.999, -1.001, -4.9999, -5.0001]))
    yield "near_root", Call(torch.tensor([1.4616321, 1.46, 1.47, 1.4616, 1.4617]))
    yield "large", Call(torch.tensor([10.0, 123.25, 1e4, 1e6, 1e30]))
    yield "matrix", Call(off_poles(sample((33, 65), gen) * 3))


def random_cases(gen, mode):
    yield "vector", Call(off_poles(sample((65_537,), gen, mode)))
    yield "matrix", Call(off_poles(sample((129, 257), gen, mode) * 3))
    yield "positive", Call(sample((4, 31, 127), gen, mode).abs() * 5 + 1e-3)


def perf_cases(gen):
    yield "n2^16", Call(uniform((1 << 16,), gen, 1.0, 2.0))
    yield "n2^24_signed", Call(off_poles(sample((1 << 24,), gen)))
    yield "n2^27", Call(uniform((1 << 27,), gen, 1.0, 2.0))


TASK = Task(
    id="Math/digamma",
    entry="digamma",
    signature="digamma(input: Tensor) -> Tensor",
    description="Returns ψ(x) = d/dx ln Γ(x) of every element as a new float32 tensor of the input's shape. "
                "Poles follow torch: ψ(+0) = −inf and ψ(−0) = +inf; negative integers (every float32 ≤ −2^23 "
                "is one) and −inf give NaN; +inf gives +inf; NaN stays NaN. Negative non-integers are finite: "
                "use the reflection ψ(x) = ψ(1 − x) − π/tan(πx). For positive x, shift x upward with "
                "ψ(x) = ψ(x + 1) − 1/x and use the asymptotic series ln x − 1/(2x) − Σ B₂ₖ/(2k·x^(2k)) for "
                "large x. (torch's `out=` argument is not part of the task.)",
    math=r"\psi(x) = \frac{d}{dx}\ln\Gamma(x) = \frac{\Gamma'(x)}{\Gamma(x)}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="fp32 tolerance: recurrence plus asymptotic series (and the reflection for x < 0) "
                            "in fp32 stays within ~1e-6 absolute near ψ's root at x ≈ 1.4616 and a few ulp "
                            "relative elsewhere; stage-2 inputs keep at least 1e-3 from the poles."),
    flops=elementwise_flops(30),
    deviations=(
        Deviation(Kind.COVERAGE, "positive inputs only: fixed values and |N(0, 1)| + 0.1",
                  "adds negative non-integers (reflection), the poles ±0, negative integers and -inf, +inf, NaN, "
                  "values near the poles and near the root 1.4616, large x, empty and size-1 dimensions; random "
                  "inputs of 65 537, 129×257 and 4×31×127 elements (signed, kept 1e-3 from the poles)",
                  "torch.special.digamma is defined on the whole real line; its poles and negative branch are "
                  "where implementations go wrong"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(kbx="1-D inputs of 2^16 and 2^27 elements in U[1, 2) as upstream, and 2^24 signed N(0, 1) "
                         "values 1e-3 away from the poles", upstream="16 1-D inputs of 2^12 … 2^27 elements in "
                     "U[1, 2), times summed", extra_reason="the signed case times the reflection branch too"),
    ),
)
