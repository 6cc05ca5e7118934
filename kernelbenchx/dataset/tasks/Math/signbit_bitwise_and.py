"""Math/signbit_bitwise_and: the sign bits of a float tensor, and its integer cast ANDed with an integer tensor."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randbool, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor, other: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.signbit(input), torch.bitwise_and(input.to(other.dtype), other)


def fixed_cases(gen):
    nan = float("nan")
    yield "example", Call(torch.tensor([0.7, -1.2, 0.0, 2.3]), torch.tensor([1, 0, 1, 1], dtype=torch.int8))
    yield "truncation", Call(torch.tensor([-0.0, 0.0, 3.9, -3.9, 127.5, -128.0, 5.0, -5.0, -7.5, 1e-45]),
                             torch.tensor([-1, -1, -1, -1, 85, -1, 4, 4, 0, -1], dtype=torch.int8))
    yield "bool_other", Call(torch.tensor([0.0, -0.0, 0.5, -2.0, 3.0, 0.0, -1e-30, nan, -nan]),
                             torch.tensor([True, True, True, True, False, False, True, True, True]))
    yield "int32_matrix", Call(sample((33, 65), gen) * 1000, randint((33, 65), gen, -2**31, 2**31 - 1,
                                                                      dtype=torch.int32))


def random_cases(gen, mode):
    yield "int8", Call((sample((65_537,), gen, mode) * 20).clamp(-127.0, 127.0),
                       randint((65_537,), gen, -128, 128, dtype=torch.int8))
    yield "int32", Call(sample((129, 257), gen, mode) * 1e4,
                        randint((129, 257), gen, -2**31, 2**31 - 1, dtype=torch.int32))
    yield "bool", Call(torch.trunc(sample((4, 31, 127), gen, mode)), randbool((4, 31, 127), gen))
    # magnitudes up to 2.1e9: the conversion must go straight to int32 (no detour through a narrower type)
    yield "int32_large", Call((sample((3, 1001), gen, mode) * 5e8).clamp(-2.1e9, 2.1e9),
                              randint((3, 1001), gen, -2**31, 2**31 - 1, dtype=torch.int32))


def perf_cases(gen):
    def case(n):
        return Call((sample((n,), gen) * 20).clamp(-127.0, 127.0), randint((n,), gen, -128, 128, dtype=torch.int8))

    yield "n2^16", case(1 << 16)
    yield "n2^24", case(1 << 24)
    yield "n2^27", case(1 << 27)


TASK = Task(
    id="Math/signbit_bitwise_and",
    entry="signbit_bitwise_and",
    signature="signbit_bitwise_and(input: Tensor, other: Tensor) -> tuple[Tensor, Tensor]",
    description="`input` is a float32 tensor and `other` an integer or bool tensor of the same shape. Returns a "
                "tuple of two new tensors of that shape: (1) torch.signbit(input), a bool tensor that is True "
                "where the IEEE sign bit is set (negatives, -0.0, NaNs with the sign bit set); (2) "
                "bitwise_and(input.to(other.dtype), other) in other's dtype: `input` is first converted to "
                "other's dtype (integers: truncation toward zero, two's-complement bits; bool: nonzero → True, "
                "so NaN → True and ±0 → False), then ANDed bit by bit with `other`. Every finite input fits in "
                "other's range, and NaN occurs only with a bool `other`.",
    math=r"s_i = \text{signbit}(x_i),\quad b_i = \text{int}(x_i) \mathbin{\&} o_i",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; other int8, int32 or bool, same shape; outputs bool and other's "
                             "dtype (both compared exactly)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0)),
    flops=elementwise_flops(2),
    unit="int",
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the gold converts both operands to int8 and returns an int8 AND (a bool "
                  "`other` gives 0/1 int8 values ANDed with int8(input))", "bitwise_and(input.to(other.dtype), "
                  "other) in other's dtype: bool for a bool `other` (input → nonzero), int32 for int32",
                  "the catalogue's reference code is torch.bitwise_and(input.to(other.dtype), other); the two "
                  "agree for int8 `other` (upstream's perf dtype) and differ for bool", in_prompt=True),
        Deviation(Kind.COVERAGE, "`other` int8 or bool", "`other` int8, int32 or bool",
                  "int32 with inputs up to 2.1e9 checks that the conversion goes straight to other's dtype"),
        sweep_subset("1-D inputs of 2^16, 2^24 and 2^27 elements, `other` int8",
                     upstream="16 1-D inputs of 2^12 … 2^27 elements (float32 input, int8 `other`), times summed",
                     extra_reason="inputs are N(0,1)·20 clamped to ±127 so every conversion is in int8's range"),
    ),
)
