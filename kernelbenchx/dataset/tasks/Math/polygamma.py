"""Math/polygamma: the n-th derivative of the digamma function, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(n: int, input: torch.Tensor) -> torch.Tensor:
    return torch.special.polygamma(n, input)


def positive(shape, gen, mode="standard", scale=1.0):
    return sample(shape, gen, mode).abs() * scale + 1e-3


def fixed_cases(gen):
    nan = float("nan")
    # the pole at 0, NaN, negative non-integers well away from the poles, the digamma root, large x
    edges = torch.tensor([0.0, nan, -0.5, -1.5, -2.25, -3.7, 1e-3, 0.5, 1.0, 1.4616321, 2.0, 10.0, 1e3, 1e5])
    for n in range(5):
        yield f"edges_n{n}", Call(n, edges)
    yield "ramp_n0", Call(0, torch.linspace(0.01, 20.0, 1001))
    yield "ramp_n1", Call(1, torch.linspace(0.01, 20.0, 1001))
    yield "example_n3", Call(3, torch.tensor([1.0, 0.5]))
    yield "matrix_n2", Call(2, positive((33, 65), gen, scale=5.0))


def random_cases(gen, mode):
    yield "digamma", Call(0, positive((65_537,), gen, mode, scale=10.0))
    yield "trigamma", Call(1, positive((129, 257), gen, mode))
    yield "n2", Call(2, positive((4, 31, 127), gen, mode, scale=3.0))
    yield "n3", Call(3, positive((7, 1001), gen, mode, scale=30.0))
    yield "n4", Call(4, positive((20_011,), gen, mode))


def perf_cases(gen):
    yield "n1_2^16", Call(1, positive((1 << 16,), gen))
    yield "n1_2^24", Call(1, positive((1 << 24,), gen))
    yield "n2_2^27", Call(2, positive((1 << 27,), gen))


TASK = Task(
    id="Math/polygamma",
    entry="polygamma",
    signature="polygamma(n: int, input: Tensor) -> Tensor",
    description="Returns ψ⁽ⁿ⁾(x), the n-th derivative of the digamma function ψ = Γ'/Γ, for every element x of "
                "`input` (n is a Python int, 0 ≤ n ≤ 4 in the tests; n = 0 is digamma, n = 1 trigamma), as a new "
                "tensor of the input's shape and dtype. For n ≥ 1, ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! Σ_{k≥0} 1/(x+k)ⁿ⁺¹ (the "
                "Hurwitz zeta ζ(n+1, x) times (−1)ⁿ⁺¹ n!). Inputs: positive x (down to 1e-3 and up to 1e5), "
                "negative non-integers away from the poles (e.g. −0.5, −2.25; use the reflection formula or "
                "direct summation), x = 0, where the result is the pole's (−1)ⁿ⁺¹·inf (digamma(0) = −inf), and "
                "NaN, which stays NaN. Negative integers and ±inf do not occur. (torch's `out=` argument is not "
                "part of the task.)",
    math=r"\psi^{(n)}(x) = \frac{d^{n}}{dx^{n}} \frac{\Gamma'(x)}{\Gamma(x)} "
         r"= (-1)^{n+1}\, n!\, \sum_{k \ge 0} \frac{1}{(x+k)^{n+1}} \quad (n \ge 1)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="n a Python int; input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=5e-5, atol=1e-5),
                      notes="rtol is 5e-5, not 1e-5, to leave room for float32 special-function error on both "
                            "sides: the reference is torch's float32 polygamma (within 5e-7 of float64), and a "
                            "careful float32 Triton version (recurrence to x ≥ 10, then the asymptotic series for "
                            "n ≤ 1; (−1)ⁿ⁺¹ n! ζ(n+1, x) for n ≥ 2; powers as exp2(e·log2 a), whose error grows "
                            "with |e·log2 a|) was measured within 3.1e-6 of it on an H100."),
    flops=elementwise_flops(60),
    choices={"n": (0, 1, 2, 3, 4)},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "rtol 5e-5, atol 1e-5",
                  "both sides are float32 special-function evaluations: torch's reference is within 5e-7 of "
                  "float64, a careful Triton version within 3.1e-6 of the reference (measured on an H100), so "
                  "1e-5 relative leaves too little room for float32 power and series rounding"),
        Deviation(Kind.COVERAGE, "n from 1 to 4 on N(0,1)-based inputs", "n from 0 (digamma) to 4; x = 0 (the "
                  "pole), NaN, negative non-integers, x from 1e-3 to 1e5",
                  "the catalogue defines the function for every n ≥ 0; the edge values pin the pole's sign"),
        sweep_subset("1-D inputs of 2^16 and 2^24 elements (n = 1) and 2^27 elements (n = 2)",
                     extra_reason="values are |N(0,1)| + 1e-3 (positive, so every result is finite)"),
    ),
)
