"""Fusion/fused_add_mean: mean of input + alpha·other over some dimensions (or all)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, other, dim=None, alpha=1, keepdim: bool = False, dtype=None) -> torch.Tensor:
    return torch.mean(torch.add(input, other, alpha=alpha), dim=dim, keepdim=keepdim, dtype=dtype)


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 51, dtype=torch.float32), torch.ones(101), alpha=0.5)
    yield "rows_keepdim", Call(sample((7, 33), gen), sample((7, 33), gen), 1, keepdim=True)
    yield "cols_broadcast_row", Call(sample((65, 9), gen), sample((9,), gen), 0, alpha=-2)
    yield "scalar_other_negative_dim", Call(sample((3, 5, 17), gen), 3.25, -1)
    yield "tuple_dim", Call(sample((4, 6, 10), gen), sample((4, 1, 10), gen), (0, 2))
    yield "all_keepdim", Call(sample((5, 7), gen), sample((5, 7), gen), None, 2, True)
    yield "float64_accumulate", Call(sample((16, 1000), gen), sample((16, 1000), gen), 1, dtype=torch.float64)
    yield "overflow", Call(torch.tensor([3e38, 3e38, -1.0]), torch.tensor([3e38, 0.0, 1.0]))


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode) + 0.5, sample((257, 1025), gen, mode), 1, alpha=0.5)
    yield "cols_keepdim", Call(sample((1025, 129), gen, mode), sample((1025, 129), gen, mode), 0, keepdim=True)
    yield "flat", Call(sample((100_003,), gen, mode), sample((100_003,), gen, mode) + 1.0)
    yield "tuple_dim_broadcast", Call(sample((8, 63, 65), gen, mode), sample((63, 1), gen, mode), (0, 2), -1.5)


def perf_cases(gen):
    yield "rows_1024x4096", Call(sample((1024, 4096), gen), sample((1024, 4096), gen), 1)
    yield "rows_16384x4096", Call(sample((16384, 4096), gen), sample((16384, 4096), gen), 1, 0.5)
    yield "all_n2^27", Call(sample((1 << 27,), gen), sample((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_add_mean",
    entry="fused_add_mean",
    signature="fused_add_mean(input: Tensor, other: Tensor | float, dim: int | tuple[int, ...] | None = None, "
              "alpha: float = 1, keepdim: bool = False, dtype: torch.dtype | None = None) -> Tensor",
    description="Computes s = input + alpha·other (other is a tensor broadcastable with input, or a Python "
                "number; the sum has the broadcast shape and dtype float32), then returns the mean of s over "
                "dimension(s) `dim` (an int, a tuple of ints, negative values allowed) or over all elements when "
                "dim is None (a 0-dim tensor). keepdim=True keeps each reduced dimension with size 1. When dtype "
                "is given, s (computed in float32) is cast to dtype before the mean and the result has that "
                "dtype. IEEE rules apply: a sum that overflows gives ±inf. The upstream `out=` argument is "
                "dropped.",
    math=r"\mathrm{out} = \frac{1}{|D|}\sum_{i \in D} (x_i + \alpha\,y_i)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; other float32 tensor or Python number; output float32 "
                             "(or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; atol covers fp32 reassociation of the mean."),
    flops=lambda call, out: 3.0 * torch.broadcast_shapes(
        call.args[0].shape, getattr(call.args[1], "shape", ())).numel(),
)
