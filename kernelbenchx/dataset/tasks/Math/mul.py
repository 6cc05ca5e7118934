"""Math/mul: elementwise product with broadcasting, a scalar operand and type promotion."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor, other) -> torch.Tensor:
    return torch.mul(input, other)


def complex_sample(shape, gen):
    # N(0,1) parts in both sampling modes: a product's real part ac − bd cancels, and with 10× outliers on both
    # sides its rounding (which depends on whether a kernel fuses the multiply-add) would exceed atol 1e-5
    return torch.complex(sample(shape, gen), sample(shape, gen))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "specials", Call(torch.tensor([0.0, -0.0, inf, -inf, nan, 3e38, 1e-30, 2.0]),
                           torch.tensor([inf, 5.0, 0.0, -2.0, 1.0, 10.0, 1e-30, -0.5]))
    yield "scalar_float", Call(sample((1000,), gen), 100.0)
    yield "scalar_int", Call(sample((7, 33), gen), -3)
    yield "broadcast_outer", Call(sample((4, 1), gen), sample((1, 4), gen))
    yield "broadcast_row", Call(sample((17, 65), gen), sample((65,), gen))
    yield "int32", Call(randint((33, 9), gen, -1000, 1000, dtype=torch.int32),
                        randint((33, 9), gen, -1000, 1000, dtype=torch.int32))
    yield "float_times_int", Call(sample((5, 31), gen), randint((5, 31), gen, -5, 5, dtype=torch.int32))
    yield "complex", Call(complex_sample((6, 7), gen), complex_sample((6, 7), gen))
    yield "complex_times_float", Call(complex_sample((5, 1), gen), sample((1, 6), gen))
    yield "float16", Call(sample((9, 40), gen, dtype=torch.float16), sample((9, 40), gen, dtype=torch.float16))
    yield "float16_scalar", Call(sample((100,), gen, dtype=torch.float16), 0.1)
    yield "scalar_0d", Call(torch.tensor(3.0), sample((5,), gen))
    yield "empty", Call(torch.empty(0, 3), sample((3,), gen))
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen))
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen))


def random_cases(gen, mode):
    yield "same_shape", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "broadcast", Call(sample((129, 1, 257), gen, mode), sample((3, 257), gen, mode))
    yield "scalar", Call(sample((4, 31, 127), gen, mode), -0.3)
    # int32 products wrap modulo 2^32 (operands beyond 2^24 also catch a detour through float32)
    yield "int32_wrap", Call(randint((2, 1001), gen, -2**31, 2**31 - 1, dtype=torch.int32),
                             randint((2, 1001), gen, -2**31, 2**31 - 1, dtype=torch.int32))
    yield "int32_scalar", Call(randint((999,), gen, -2**31, 2**31 - 1, dtype=torch.int32), 7)
    yield "complex", Call(complex_sample((33, 65), gen), complex_sample((65,), gen))
    yield "float16", Call(sample((3, 4097), gen, mode, dtype=torch.float16),
                          sample((3, 4097), gen, mode, dtype=torch.float16))


def perf_cases(gen):
    # float16, as upstream's perf script times mul
    for name, n in (("n2^16_fp16", 1 << 16), ("n2^24_fp16", 1 << 24), ("n2^27_fp16", 1 << 27)):
        yield name, Call(sample((n,), gen, dtype=torch.float16), sample((n,), gen, dtype=torch.float16))


TASK = Task(
    id="Math/mul",
    entry="mul",
    signature="mul(input: Tensor, other: Tensor | float | int) -> Tensor",
    description="Returns input × other elementwise as a new tensor. `other` is a tensor or a Python number. "
                "Tensors broadcast to a common shape (standard broadcasting rules), and the result dtype follows "
                "torch's type promotion: float32 × float32, float32 × Python number and float32 × int32 tensor "
                "give float32; float16 × float16 gives float16 (the exact product rounded once); int32 × int32 "
                "gives int32 (wrapping on overflow); complex64 × complex64 or × float32 gives complex64 "
                "((a+bi)(c+di) = (ac − bd) + (ad + bc)i); a Python number does not change the tensor's dtype. "
                "IEEE rules apply (0 × inf = NaN). (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \text{input}_i \times \text{other}_i",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32, float16, int32 or complex64; other a tensor of those dtypes or a "
                             "Python float/int; output the promoted dtype, broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
    unit="fp16",  # the perf cases are float16
    deviations=(
        Deviation(Kind.COVERAGE, "float32 and complex tensors, Python scalars", "float32, complex64, float16 and "
                  "int32 tensors (int32 products wrap), Python scalars, 0-d and empty tensors, rank 4 and 5 "
                  "broadcasts",
                  "the catalogue promises integer, float and complex inputs with type promotion; float16 is the "
                  "dtype upstream times, so it is checked before it is timed"),
        sweep_subset("float16 1-D inputs of 2^16, 2^24 and 2^27 elements",
                     upstream="16 float16 1-D inputs of 2^12 … 2^27 elements, times summed"),
    ),
)
