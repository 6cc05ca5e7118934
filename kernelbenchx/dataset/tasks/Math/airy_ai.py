"""Math/airy_ai: the Airy function Ai, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.airy_ai(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "zeros", Call(torch.zeros(9))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "ramp", Call(torch.linspace(-20.0, 10.0, 3001))
    yield "near_zero", Call(torch.tensor([-1e-30, 1e-30, -1e-6, 1e-6, -0.01, 0.01]))
    yield "nonfinite", Call(torch.tensor([-inf, inf, nan, 30.0, 100.0, 1e10]))
    yield "oscillating", Call(torch.tensor([-2.33810741, -4.08794944, -5.52055983, -10.0, -25.5, -33.3]))
    yield "matrix", Call(sample((33, 65), gen) * 3)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/airy_ai",
    entry="airy_ai",
    signature="airy_ai(input: Tensor) -> Tensor",
    description="Returns the Airy function of the first kind Ai(x) of every element, as a new float32 tensor "
                "of the input's shape. Ai solves y'' = x·y and decays to 0 as x → +∞ (it underflows to 0 in "
                "float32 for x ≳ 26); for x → −∞ it oscillates with amplitude ≈ π^(−1/2)·|x|^(−1/4) and phase "
                "(2/3)|x|^(3/2) + π/4. Ai(0) ≈ 0.3550281. As torch does, ±inf and NaN inputs give NaN. "
                "No Triton builtin exists: use series / rational / asymptotic approximations in fp32. "
                "Negative inputs are tested down to about −60: below about −84 torch's float32 evaluation (the "
                "reference) drifts from Ai by more than the tolerance. (torch's `out=` argument is not part of "
                "the task.)",
    math=r"\mathrm{Ai}(x) = \frac{1}{\pi}\int_0^\infty \cos\!\left(\tfrac{t^3}{3} + x t\right)dt",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-4, atol=2e-5),
                      notes="Tolerance is looser than fp32's 1e-5: for x ≪ 0 the phase (2/3)|x|^(3/2) reaches "
                            "~200 at x = −45, and the fp32 rounding of that phase alone moves Ai by up to "
                            "~1e-5 in any fp32 implementation (the reference's own error is ~6e-6 there); "
                            "rtol 1e-4 covers the rational approximations' relative error."),
    flops=elementwise_flops(40),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "rtol 1e-4, atol 2e-5",
                  "for x ≪ 0 the phase (2/3)|x|^(3/2) is large and its float32 rounding alone moves Ai by up to "
                  "~1e-5 in any float32 implementation, the reference included; rtol 1e-4 admits the relative "
                  "error of float32 rational/asymptotic approximations where Ai decays"),
        Deviation(Kind.COVERAGE, "fixed values in [-10, 10] and 1024-element and 64×64 random inputs",
                  "adds ±inf, NaN, values where Ai underflows, zeros of Ai, the oscillating range down to -25, empty and size-1 dimensions; random inputs of 65 537, 129×257 and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
