"""Activation/gelu: the Gaussian error linear unit, exact (erf) or tanh-approximated."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu as pinned_gelu
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

APPROXIMATE = ("none", "tanh")
SPECIALS = [float("nan"), float("inf"), -float("inf"), -3e38, -1e13, -1e4, -30.0, -5.0, -1e-8, -0.0, 0.0, 1e-8,
            5.0, 30.0, 1e4, 1e13, 3e38]


def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    return pinned_gelu(input, approximate)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(0, 5))
    yield "ramp", Call(torch.linspace(-8.0, 8.0, 1001))
    yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001), approximate="tanh")
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "specials_tanh", Call(torch.tensor(SPECIALS), "tanh")
    yield "matrix", Call(sample((33, 65), gen))
    yield "unit_dims_tanh", Call(sample((1, 257, 1), gen) * 3, "tanh")


def random_cases(gen, mode):
    drawn = APPROXIMATE[int(torch.randint(2, (), generator=gen))]
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix_tanh", Call(sample((129, 257), gen, mode), approximate="tanh")
    yield "batch", Call(sample((4, 31, 127), gen, mode) * 3, approximate=drawn)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))
    yield "n2^27_tanh", Call(sample((1 << 27,), gen), approximate="tanh")


TASK = Task(
    id="Activation/gelu",
    entry="gelu",
    signature="gelu(input: Tensor, approximate: str = 'none') -> Tensor",
    description="Applies GELU elementwise: x·Φ(x) = 0.5·x·(1 + erf(x/√2)), with Φ the standard normal CDF, when "
                "approximate='none', or the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) when "
                "approximate='tanh'. The output has the input's shape and dtype. Special values: GELU(+inf) = +inf, "
                "GELU(-inf) = NaN (-inf·Φ(-inf) is -inf·0), NaN stays NaN; large finite inputs give x (positive) "
                "or (-)0 (negative) in both forms, also where x³ overflows float32.",
    math=r"\mathrm{GELU}(x) = x\,\Phi(x) = \tfrac{x}{2}\left(1 + \mathrm{erf}(x/\sqrt{2})\right)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(8),
    choices={"approximate": APPROXIMATE},
    deviations=(
        Deviation(Kind.COVERAGE, "fixed vectors in [-2, 2] and random 1024×1024 matrices in both forms",
                  "adds ±inf, NaN, values whose cube overflows float32, empty and size-1 dimensions; random "
                  "inputs of 65 537, 129×257 and 4×31×127 elements", "special values and odd shapes a kernel "
                  "must handle under the same semantics; random inputs stay small enough for the CPU "
                  "interpreter"),
        sweep_subset("1-D inputs of 2^16, 2^24 and 2^27 elements ('none'), and 2^27 with 'tanh'",
                     upstream="16 1-D fp32 inputs of 2^12 … 2^27 elements, approximate='none', times summed",
                     extra_reason="the tanh form is timed too because its kernel differs"),
    ),
)
