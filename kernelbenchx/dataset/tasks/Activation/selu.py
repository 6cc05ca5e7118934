"""Activation/selu: the scaled exponential linear unit, elementwise."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -1e-7, 1e-7, -20.0, -100.0, 88.0, 1e30]


def reference(input: torch.Tensor) -> torch.Tensor:
    return F.selu(input)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "ramp", Call(torch.linspace(-8.0, 8.0, 1001))
    yield "specials", Call(torch.tensor(SPECIALS))
    yield "small", Call(sample((9, 13), gen) * 1e-3)
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
    id="Activation/selu",
    entry="selu",
    signature="selu(input: Tensor) -> Tensor",
    description="Applies SELU elementwise: scale · x for x > 0 and scale · alpha · (exp(x) − 1) otherwise, with "
                "alpha = 1.6732632423543772848170429916717 and scale = 1.0507009873554804934193349852946. "
                "Large negative inputs (and -inf) give -scale·alpha ≈ -1.7581; +inf gives +inf; NaN stays NaN; "
                "large positive finite inputs may overflow to +inf exactly as scale·x does in float32. The input "
                "may have any shape; the output is a new tensor with the input's shape and dtype. (torch's "
                "`inplace` option is not part of this task: never modify the input.)",
    math=r"\mathrm{SELU}(x) = \lambda\,\big(\max(0,x) + \min(0, \alpha(e^{x}-1))\big),\ "
         r"\alpha \approx 1.6733,\ \lambda \approx 1.0507",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(5),
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "scale·(max(x, 0) + min(x, α(eˣ − 1))): 2·scale·x for x > 0, and scale·x "
                  "instead of the saturating branch for x < −1.14",
                  "the true SELU, scale·(max(x, 0) + min(0, α(eˣ − 1))) as in torch's F.selu",
                  "upstream's description and catalogue give the SELU formula with min(0, ·); its reference "
                  "compares x instead of 0", in_prompt=True),
        Deviation(Kind.COVERAGE, "an `inplace` argument (default False)",
                  "no `inplace` argument; the input must stay unchanged and the output is a new tensor",
                  "kbx checks that inputs are not modified; the values computed are the same"),
        Deviation(Kind.COVERAGE, "small fixed vectors and random 512×512 matrices",
                  "adds NaN, ±inf, values where scale·x overflows, tiny and large negative values, empty and "
                  "size-1 dimensions; random inputs of 65 537, 129×257 and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        sweep_subset(),
    ),
)
