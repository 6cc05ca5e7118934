"""Math/add: elementwise input + alpha × other with broadcasting, a scalar operand and type promotion."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randint, sample, uniform


def reference(input: torch.Tensor, other, *, alpha=1) -> torch.Tensor:
    return torch.add(input, other, alpha=alpha)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "scalar_other", Call(sample((4,), gen), 20)
    yield "broadcast_alpha", Call(sample((4,), gen), sample((4, 1), gen), alpha=10)
    yield "specials", Call(torch.tensor([inf, -inf, inf, nan, 1.0, -0.0, 3e38, 1.0]),
                           torch.tensor([-inf, -inf, 1.0, 1.0, nan, 0.0, 3e38, -1.0]))
    yield "alpha_negative_float", Call(sample((7, 33), gen), sample((7, 33), gen), alpha=-0.75)
    yield "scalar_other_alpha", Call(sample((1000,), gen), 2.5, alpha=-3)
    yield "row_broadcast", Call(sample((9, 129), gen), sample((129,), gen))
    yield "both_broadcast", Call(sample((5, 1, 7), gen), sample((3, 1), gen))
    yield "int32_alpha", Call(randint((33, 9), gen, -1000, 1000, dtype=torch.int32),
                              randint((9,), gen, -1000, 1000, dtype=torch.int32), alpha=3)


def random_cases(gen, mode):
    alpha = round(float(uniform((), gen, -4.0, 4.0)), 3)
    scalar = round(float(uniform((), gen, -10.0, 10.0)), 3)
    yield "same_shape", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "rows_alpha", Call(sample((129, 257), gen, mode), sample((257,), gen, mode), alpha=alpha)
    yield "scalar_alpha", Call(sample((4, 31, 127), gen, mode), scalar, alpha=alpha)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24_alpha", Call(sample((1 << 24,), gen), sample((1 << 24,), gen), alpha=0.5)
    yield "n2^27", Call(sample((1 << 27,), gen), sample((1 << 27,), gen))
    yield "rows_8192x8192", Call(sample((8192, 8192), gen), sample((8192,), gen), alpha=2)


def flops(call: Call, out: torch.Tensor) -> float:
    return out.numel() * (1 if call.kwargs.get("alpha", 1) == 1 else 2)


TASK = Task(
    id="Math/add",
    entry="add",
    signature="add(input: Tensor, other: Tensor | float | int, *, alpha: float | int = 1) -> Tensor",
    description="Returns input + alpha × other elementwise as a new tensor. `other` is a tensor or a Python "
                "number; `alpha` is a Python number (an int when both operands are integer). Tensors broadcast "
                "to a common shape (either operand may be the smaller one), and the result dtype follows "
                "torch's type promotion: float32 with float32 or a Python number gives float32; int32 with "
                "int32 gives int32 (exact, wrapping on overflow). IEEE rules apply (inf + -inf = NaN, NaN "
                "propagates). (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = \text{input}_i + \alpha \cdot \text{other}_i",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or int32; other a tensor of the same dtype or a Python number; "
                             "output the promoted dtype, broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="alpha × other may be fused into one multiply-add."),
    flops=flops,
)
