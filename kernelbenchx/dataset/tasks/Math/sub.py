"""Math/sub: elementwise input − alpha × other with broadcasting, a scalar operand and type promotion."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    return torch.sub(input, other, alpha=alpha)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "specials", Call(torch.tensor([inf, -inf, inf, nan, 0.0, -0.0, 3e38, 1.0]),
                           torch.tensor([inf, -inf, -inf, 1.0, 0.0, 0.0, -3e38, 1.0]))
    yield "alpha", Call(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, 2.0]), alpha=2)
    yield "alpha_float", Call(sample((7, 33), gen), sample((7, 33), gen), alpha=-0.75)
    yield "scalar_other", Call(sample((1000,), gen), 0.5)
    yield "scalar_other_alpha", Call(sample((1000,), gen), 2, alpha=1.5)
    yield "broadcast_outer", Call(sample((5, 1), gen), sample((1, 6), gen))
    yield "int32_alpha", Call(randint((33, 9), gen, -1000, 1000, dtype=torch.int32),
                              randint((9,), gen, -1000, 1000, dtype=torch.int32), alpha=3)
    yield "scalar_0d", Call(torch.tensor(1.5), sample((4,), gen))
    yield "empty", Call(torch.empty(2, 0), 1.0)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen), alpha=-2)
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen),
                               alpha=0.5)


def random_cases(gen, mode):
    yield "same_shape", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "broadcast_alpha", Call(sample((129, 1, 257), gen, mode), sample((3, 257), gen, mode), alpha=0.5)
    yield "alpha", Call(sample((4, 31, 127), gen, mode), sample((4, 31, 127), gen, mode), alpha=2)
    yield "scalar_other", Call(sample((3, 1001), gen, mode), float(sample((), gen)), alpha=-1.25)
    # int32 operands beyond 2^24 and an int alpha: the result wraps modulo 2^32
    yield "int32_wrap", Call(randint((2, 999), gen, -2**31, 2**31 - 1, dtype=torch.int32),
                             randint((999,), gen, -2**31, 2**31 - 1, dtype=torch.int32),
                             alpha=int(randint((), gen, -5, 6)))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24_alpha", Call(sample((1 << 24,), gen), sample((1 << 24,), gen), alpha=2)
    yield "n2^27", Call(sample((1 << 27,), gen), sample((1 << 27,), gen))


TASK = Task(
    id="Math/sub",
    entry="sub",
    signature="sub(input: Tensor, other: Tensor | float | int, *, alpha: float | int = 1) -> Tensor",
    description="Returns input − alpha × other elementwise as a new tensor. `other` is a tensor or a Python "
                "number; `alpha` is a Python number (an int when both operands are integer). Tensors broadcast "
                "to a common shape, and the result dtype follows torch's type promotion: float32 with float32 "
                "or a Python number gives float32; int32 with int32 gives int32 (exact, wrapping on overflow). "
                "IEEE rules apply (inf − inf = NaN). (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \text{input}_i - \alpha \cdot \text{other}_i",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or int32; other a tensor of the same dtype or a Python number; "
                             "output the promoted dtype, broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(2),
    deviations=(sweep_subset("1-D inputs of 2^16, 2^24 (alpha=2) and 2^27 elements"),),
)
