"""Math/add: elementwise input + alpha × other with broadcasting, a scalar operand and type promotion."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import SUBSET_REASON

INT32 = torch.int32


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
    yield "other_0d", Call(sample((6, 5), gen), torch.tensor(1.5), alpha=2)
    yield "empty", Call(torch.zeros(0, 3), sample((3,), gen))
    yield "int32_alpha", Call(randint((33, 9), gen, -1000, 1000, dtype=INT32),
                              randint((9,), gen, -1000, 1000, dtype=INT32), alpha=3)
    # beyond 2^24 (a float32 round trip loses bits) and past INT32_MAX (two's-complement wrap-around)
    yield "int32_wide_wrap", Call(torch.tensor([(1 << 30) + 1, (1 << 31) - 1, -(1 << 31), 16777217, -5], dtype=INT32),
                                  torch.tensor([(1 << 30) + 3, 1, -1, 1, 7], dtype=INT32), alpha=2)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen), alpha=-2)
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen),
                               alpha=0.5)


def random_cases(gen, mode):
    alpha = round(float(uniform((), gen, -4.0, 4.0)), 3)
    scalar = round(float(uniform((), gen, -10.0, 10.0)), 3)
    int_alpha = int(randint((), gen, -3, 4))
    yield "same_shape", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode))
    yield "rows_alpha", Call(sample((129, 257), gen, mode), sample((257,), gen, mode), alpha=alpha)
    yield "scalar_alpha", Call(sample((4, 31, 127), gen, mode), scalar, alpha=alpha)
    yield "int32_cols", Call(randint((257, 33), gen, -(1 << 31), 1 << 31, dtype=INT32),
                             randint((257, 1), gen, -(1 << 31), 1 << 31, dtype=INT32), alpha=int_alpha)


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
    description="Returns input + alpha × other elementwise as a new tensor. `other` is a tensor (possibly 0-d) or "
                "a Python number; `alpha` is a Python number (an int when both operands are integer). Tensors "
                "broadcast to a common shape (either operand may be the smaller one), and the result dtype "
                "follows torch's type promotion: float32 with float32 or a Python number gives float32; int32 "
                "with int32 gives int32 (exact integer arithmetic, wrapping modulo 2^32 on overflow as two's "
                "complement does). IEEE rules apply (inf + -inf = NaN, NaN propagates). (torch's `out=` "
                "argument is not part of the task.)",
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
    deviations=(
        Deviation(Kind.COVERAGE, "float32 same-shape tensors and Python scalars, alpha 1 or 0.5",
                  "adds broadcasting of either operand, 0-d and empty tensors, negative and float alphas (one "
                  "drawn per run), ±inf/NaN, int32 operands (beyond 2^24 and wrapping past INT32_MAX), and rank "
                  "4 and 5 broadcasts",
                  "torch.add has the same semantics for all of them"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        Deviation(Kind.PERF, "16 1-D fp32 pairs of 2^12 … 2^27 elements, alpha = 1, times summed",
                  "1-D pairs of 2^16, 2^24 (alpha 0.5) and 2^27 elements, and an 8192×8192 matrix plus a "
                  "broadcast row (alpha 2)", SUBSET_REASON + "; the broadcast case times the strided path"),
    ),
)
