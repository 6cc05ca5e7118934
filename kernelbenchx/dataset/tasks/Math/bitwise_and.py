"""Math/bitwise_and: elementwise bitwise AND of integer tensors, logical AND of bool tensors."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randbool, randint
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

INT32 = (-(1 << 31), (1 << 31) - 1)


def reference(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.bitwise_and(input, other)


def ints(shape, gen, mode="standard"):
    """int32 values: the full range in standard mode, small signed values (dense low bits) in outlier mode."""
    low, high = INT32 if mode == "standard" else (-64, 64)
    return randint(shape, gen, low, high, dtype=torch.int32)


def fixed_cases(gen):
    yield "int8_example", Call(torch.tensor([-1, -2, 3], dtype=torch.int8), torch.tensor([1, 0, 3], dtype=torch.int8))
    yield "bool_example", Call(torch.tensor([True, True, False]), torch.tensor([False, True, False]))
    yield "int32_signs", Call(torch.tensor([-1, -1, -2, 0x7FFFFFFF, -(1 << 31), 12, -12, 0], dtype=torch.int32),
                              torch.tensor([5, -(1 << 31), -1, -1, -1, 10, 10, -1], dtype=torch.int32))
    yield "int64_wide", Call(randint((65,), gen, -(1 << 62), 1 << 62), randint((65,), gen, -(1 << 62), 1 << 62))
    yield "uint8", Call(randint((33,), gen, 0, 256, dtype=torch.uint8), randint((33,), gen, 0, 256, dtype=torch.uint8))
    yield "int16", Call(randint((7, 9), gen, -(1 << 15), 1 << 15, dtype=torch.int16),
                        randint((7, 9), gen, -(1 << 15), 1 << 15, dtype=torch.int16))
    yield "broadcast", Call(ints((7, 1), gen), ints((1, 9), gen))
    yield "broadcast_4d", Call(ints((3, 1, 4, 5), gen), ints((2, 1, 5), gen))
    yield "broadcast_5d", Call(ints((2, 1, 3, 1, 5), gen), ints((1, 4, 1, 6, 1), gen))
    yield "other_0d", Call(ints((5, 3), gen), torch.tensor(0x0F0F0F0F, dtype=torch.int32))
    yield "empty", Call(torch.zeros(0, 4, dtype=torch.int32), ints((4,), gen))
    yield "bool_matrix", Call(randbool((33, 65), gen), randbool((33, 65), gen))


def random_cases(gen, mode):
    yield "vector", Call(ints((65_537,), gen, mode), ints((65_537,), gen, mode))
    yield "rows", Call(ints((129, 257), gen, mode), ints((257,), gen, mode))
    yield "bool", Call(randbool((4, 31, 127), gen), randbool((4, 31, 127), gen, p=0.25 if mode == "outlier" else 0.5))


def perf_cases(gen):
    yield "n2^16", Call(ints((1 << 16,), gen), ints((1 << 16,), gen))
    yield "n2^24", Call(ints((1 << 24,), gen), ints((1 << 24,), gen))
    yield "n2^27", Call(ints((1 << 27,), gen), ints((1 << 27,), gen))
    yield "bool_n2^27", Call(randbool((1 << 27,), gen), randbool((1 << 27,), gen))


TASK = Task(
    id="Math/bitwise_and",
    entry="bitwise_and",
    signature="bitwise_and(input: Tensor, other: Tensor) -> Tensor",
    description="Returns input & other elementwise as a new tensor. Both are integer tensors of the same dtype "
                "(int8, int16, int32, int64 or uint8; the AND acts on the two's-complement bits, so negative "
                "values work as usual) or both are bool tensors (logical AND). They broadcast to a common "
                "shape; the result has that shape and the inputs' dtype. (torch's `out=` argument is not part "
                "of the task.)",
    math=r"\text{out}_i = \text{input}_i \mathbin{\&} \text{other}_i",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and other int8/int16/int32/int64/uint8 or bool, same dtype; output that "
                             "dtype, broadcast shape (compared exactly)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0)),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "int32 values in [0, 256) and bool, with a broadcast row and a 0-d `other`",
                  "adds int8, int16, int64 and uint8, the full int32 range (negative values), broadcasting of "
                  "both operands and empty tensors", "torch.bitwise_and has the same semantics for every integer "
                  "dtype; sign bits are where kernels go wrong"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(kbx="1-D int32 pairs of 2^16, 2^24 and 2^27 elements, and a bool pair of 2^27",
                     upstream="16 1-D int32 pairs of 2^12 … 2^27 elements with values in {0, 1}, times summed",
                     extra_reason="the bool case times the 1-byte path"),
    ),
    unit="int",
)
