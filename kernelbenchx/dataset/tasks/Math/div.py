"""Math/div: elementwise division, true or with trunc/floor rounding, with broadcasting and scalars."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor, other, *, rounding_mode=None) -> torch.Tensor:
    return torch.div(input, other, rounding_mode=rounding_mode)


def nonzero(x: torch.Tensor) -> torch.Tensor:
    """Keeps divisors at least 1e-3 away from zero (division by zero belongs to the fixed cases)."""
    return torch.where(x.abs() < 1e-3, torch.full_like(x, 1e-3).copysign(x), x)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    a = sample((4, 4), gen)
    b = sample((4,), gen)
    yield "scalar", Call(sample((5,), gen), 0.5)
    yield "tensors_0d", Call(torch.tensor(6.0), torch.tensor(3.0))
    yield "other_0d_floor", Call(sample((4, 6), gen) * 10, torch.tensor(-0.7), rounding_mode="floor")
    yield "empty", Call(torch.zeros(0, 4), sample((4,), gen))
    yield "broadcast", Call(a, b)
    yield "broadcast_trunc", Call(a, b, rounding_mode="trunc")
    yield "broadcast_floor", Call(a, b, rounding_mode="floor")
    by_zero = (torch.tensor([1.0, -1.0, 0.0, inf, -inf, nan, 2.0, -0.0]),
               torch.tensor([0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, -0.0]))
    yield "by_zero", Call(*by_zero)
    yield "by_zero_trunc", Call(*by_zero, rounding_mode="trunc")
    yield "by_zero_floor", Call(*by_zero, rounding_mode="floor")
    # The floor mode rounds the exact quotient: 1 // 0.1 is 9 although 1 / 0.1 rounds to 10.0 in float32.
    inexact = (torch.tensor([1.0, -1.0, 0.3, 0.7, 5.0, -7.5, 3.0, 1e10]),
               torch.tensor([0.1, 0.1, 0.1, 0.1, 0.5, 2.0, -0.3, 3.0]))
    yield "inexact_trunc", Call(*inexact, rounding_mode="trunc")
    yield "inexact_floor", Call(*inexact, rounding_mode="floor")
    # floor-mode remainders fmod(x, y) beyond float16's range (1e5, 7e4, 3e5) and below its smallest subnormal
    # (1e-8, 3e-9, the sign correction of x/y < 0 hinges on them being nonzero): exact only in float32 or wider
    yield "extreme_remainders_floor", Call(torch.tensor([1e5, -1e5, 7e4, 1e-8, -1e-8, 3e-9, 1e6]),
                                           torch.tensor([3e5, 3e5, -1e5, -1.0, 1.0, -2.0, 7e5]), rounding_mode="floor")
    yield "inf_operands_floor", Call(torch.tensor([inf, -inf, 5.0, -5.0, 0.0, nan]),
                                     torch.tensor([2.0, 2.0, inf, inf, -inf, 1.0]), rounding_mode="floor")
    yield "scalar_floor", Call(sample((33, 65), gen) * 10, -2.5, rounding_mode="floor")
    yield "scalar_trunc", Call(sample((33, 65), gen) * 10, 3, rounding_mode="trunc")
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), nonzero(sample((2, 1, 5), gen)))
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call((sample((2, 6, 3, 1, 5), gen) * 10).transpose(1, 3),
                               nonzero(sample((1, 4, 1, 6, 1), gen)), rounding_mode="floor")


def random_cases(gen, mode):
    scalar = round(float(uniform((), gen, 0.25, 4.0)), 3)
    yield "true", Call(sample((65_537,), gen, mode), nonzero(sample((65_537,), gen, mode)))
    yield "rows_floor", Call(sample((129, 257), gen, mode) * 10, nonzero(sample((257,), gen, mode)),
                             rounding_mode="floor")
    yield "scalar_trunc", Call(sample((4, 31, 127), gen, mode) * 10, -scalar, rounding_mode="trunc")
    yield "same_floor", Call(sample((3, 100_003), gen, mode) * 10, nonzero(sample((3, 100_003), gen, mode)),
                             rounding_mode="floor")


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), nonzero(sample((1 << 16,), gen)))
    yield "n2^24", Call(sample((1 << 24,), gen), nonzero(sample((1 << 24,), gen)))
    yield "n2^27", Call(sample((1 << 27,), gen), nonzero(sample((1 << 27,), gen)))
    yield "n2^26_floor", Call(sample((1 << 26,), gen) * 10, nonzero(sample((1 << 26,), gen)),
                              rounding_mode="floor")


TASK = Task(
    id="Math/div",
    entry="div",
    signature="div(input: Tensor, other: Tensor | float | int, *, rounding_mode: str | None = None) -> Tensor",
    description="Divides input by other elementwise and returns a new float32 tensor. `other` is a float32 "
                "tensor or a Python number; tensors broadcast to a common shape. rounding_mode=None: true "
                "IEEE division (x/0 = ±inf by the signs of x and of the zero, 0/0 = NaN). 'trunc': the "
                "float32 quotient x/y rounded toward zero, trunc(x/y). 'floor': Python's floor division "
                "x // y, i.e. the floor of the exact quotient, which is not always floor(x/y) of the rounded "
                "quotient (1 // 0.1 = 9 because 0.1 is stored as slightly more than 0.1, while 1/0.1 rounds "
                "to 10). Compute it as torch does: m = fmod(x, y); d = (x − m)/y; if m ≠ 0 and (y < 0) ≠ "
                "(m < 0), d −= 1; then f = floor(d), plus 1 if d − f > 0.5; a zero d gives a zero with the "
                "sign of x/y. Division by zero in 'trunc' and 'floor' gives the IEEE result of x/y; "
                "inf // finite is NaN and finite // ±inf follows the formula (5 // inf = 0, −5 // inf = −1). "
                "(torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \frac{\text{input}_i}{\text{other}_i}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; other a float32 tensor or a Python number; output float32, "
                             "broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="With a Python-number divisor, multiplying by its reciprocal is allowed for "
                            "true division (within tolerance), but 'floor' must still round the exact "
                            "quotient."),
    flops=elementwise_flops(1),
    choices={"rounding_mode": (None, "trunc", "floor")},
    deviations=(
        Deviation(Kind.COVERAGE, "true division only: 0-d tensors, a Python scalar, a broadcast row, and 64×64 "
                  "random pairs (divisor + 1e-3)", "adds rounding_mode 'trunc' and 'floor' (in the signature, never "
                  "tested upstream), division by ±0, ±inf and NaN operands, inexact floor quotients (1 // 0.1 = 9), "
                  "empty tensors, rank 4 and 5 broadcasts; random inputs of 65 537, 129×257, 4×31×127 and "
                  "3×100 003 elements",
                  "torch.div defines all of them; floor division of the exact quotient is where kernels go wrong"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(kbx="1-D pairs of 2^16, 2^24 and 2^27 elements (true division), and 2^26 with 'floor'",
                     upstream="16 1-D fp32 pairs of 2^12 … 2^27 elements, true division, times summed",
                     extra_reason="the floor case times the exact-quotient path"),
    ),
)
