"""Activation/relu: the rectified linear unit, max(0, x), elementwise."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -1e-30, 1e-30, -3.5, 3.5]


def reference(input: torch.Tensor) -> torch.Tensor:
    return F.relu(input)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(3, 0))
    yield "unit_dims", Call(sample((1, 129, 1), gen))
    yield "ramp", Call(torch.linspace(-4.0, 4.0, 1001))
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "negatives", Call(-sample((9, 13), gen).abs())
    yield "matrix", Call(sample((33, 65), gen))
    # a contiguous prefix of a longer buffer: finite values follow the view in memory
    yield "buffer_prefix", Call(sample((1100,), gen)[:1000])


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Activation/relu",
    entry="relu",
    signature="relu(input: Tensor) -> Tensor",
    description="Applies the rectified linear unit elementwise: each element x becomes x when x > 0 and 0 otherwise. "
                "NaN inputs stay NaN, +inf stays +inf, -inf becomes 0. The input may have any shape; the output is a "
                "new tensor with the input's shape and dtype. (torch's `inplace` option is not part of this task: "
                "never modify the input.)",
    math=r"\mathrm{ReLU}(x) = \max(0, x)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="NaN must propagate (a plain max(x, 0) that drops NaN is wrong)."),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "`inplace=True` is tested (the input is overwritten and returned)",
                  "no `inplace` argument; the input must stay unchanged and the output is a new tensor",
                  "kbx checks that inputs are not modified; the values computed are the same"),
        Deviation(Kind.COVERAGE, "small fixed tensors and random 256×256 matrices",
                  "adds NaN, ±inf, ±0, empty and size-1 dimensions; random inputs of 65 537, 129×257 and "
                  "4×31×127 elements", "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "inputs that own their whole storage",
                  "adds a contiguous 1000-element prefix of a 1100-element buffer",
                  "a kernel that stores one element past the end (a bound off by one) writes a finite value into the output's guard band, which a NaN read from a fresh input's poison band would not disturb"),
        sweep_subset(),
    ),
)
