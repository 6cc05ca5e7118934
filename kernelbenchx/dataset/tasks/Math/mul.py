"""Math/mul: elementwise product with broadcasting, a scalar operand and type promotion."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input: torch.Tensor, other) -> torch.Tensor:
    return torch.mul(input, other)


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


def random_cases(gen, mode):
    yield "same_shape", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "broadcast", Call(sample((129, 1, 257), gen, mode), sample((3, 257), gen, mode))
    yield "scalar", Call(sample((4, 31, 127), gen, mode), -0.3)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen), sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen), sample((1 << 27,), gen))


TASK = Task(
    id="Math/mul",
    entry="mul",
    signature="mul(input: Tensor, other: Tensor | float | int) -> Tensor",
    description="Returns input × other elementwise as a new tensor. `other` is a tensor or a Python number. "
                "Tensors broadcast to a common shape (standard broadcasting rules), and the result dtype follows "
                "torch's type promotion: float32 × float32, float32 × Python number and float32 × int32 tensor "
                "give float32; int32 × int32 gives int32 (wrapping on overflow); a Python number does not change "
                "the tensor's dtype. IEEE rules apply (0 × inf = NaN). (torch's `out=` argument is not part of "
                "the task.)",
    math=r"\text{out}_i = \text{input}_i \times \text{other}_i",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or int32; other a tensor of float32/int32 or a Python float/int; "
                             "output the promoted dtype, broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
)
