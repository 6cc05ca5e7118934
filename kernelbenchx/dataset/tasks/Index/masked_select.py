"""Index/masked_select: stream compaction, the elements of `input` where a broadcast boolean mask is True."""

import torch
from torch._subclasses.fake_tensor import FakeTensor

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randbool, sample


def reference(input: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if isinstance(input, FakeTensor) or isinstance(mask, FakeTensor):
        # Shape-only tracing has no data, so the length is unknown: give the upper bound (every element).
        return input.new_empty(torch.broadcast_shapes(input.shape, mask.shape).numel())
    return torch.masked_select(input, mask)


def fixed_cases(gen):
    x = sample((10,), gen)
    yield "positive", Call(x, x > 0)
    yield "none", Call(sample((7, 9), gen), torch.zeros(7, 9, dtype=torch.bool))
    yield "all", Call(sample((5, 3), gen), torch.ones(5, 3, dtype=torch.bool))
    yield "row_mask", Call(sample((6, 11), gen), torch.tensor([True, False, False, True, True, False]).view(6, 1))
    yield "col_mask", Call(sample((4, 5, 7), gen), randbool((7,), gen))
    yield "input_broadcast", Call(sample((1, 9), gen), randbool((4, 9), gen))
    yield "int64", Call(torch.arange(-20, 20).reshape(5, 8), randbool((5, 8), gen))
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), randbool((2, 1, 5), gen))
    # rank 5, input and mask both broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), randbool((1, 4, 1, 6, 1), gen))
    yield "nonfinite", Call(torch.tensor([float("nan"), 1.0, float("inf"), -2.0]),
                            torch.tensor([True, False, True, True]))


def random_cases(gen, mode):
    yield "half", Call(sample((100_003,), gen, mode), randbool((100_003,), gen, 0.5))
    yield "sparse", Call(sample((257, 1021), gen, mode), randbool((257, 1021), gen, 0.05))
    yield "dense_3d", Call(sample((7, 301, 67), gen, mode), randbool((7, 301, 67), gen, 0.9))
    yield "row_broadcast", Call(sample((513, 257), gen, mode), randbool((513, 1), gen, 0.3))


def perf_cases(gen):
    for p in (18, 20, 22):
        yield f"n2^{p}", Call(sample((1 << p,), gen), randbool((1 << p,), gen))


TASK = Task(
    id="Index/masked_select",
    entry="masked_select",
    signature="masked_select(input: Tensor, mask: Tensor) -> Tensor",
    description="Returns a new 1-D tensor holding the elements of `input` where the boolean `mask` is True, like "
                "torch.masked_select. `input` and `mask` are broadcast to a common shape first; the selected "
                "elements come in row-major (C) order of that shape. The output length is the number of True "
                "entries of the broadcast mask (it may be 0) and its dtype is input's dtype.",
    math=r"\mathrm{out} = (x_i \mid m_i = \mathrm{True})_{i\ \text{in row-major order}}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int64); mask bool, broadcastable with input; output 1-D, "
                             "input's dtype",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="The output size depends on the data; values and order must match exactly. "
                            "Reading the count back to the host to size the output is allowed."),
    flops=lambda call, out: 0.0,
    deviations=(
        Deviation(Kind.PERF, "1-D, n = 4096 … 4194304 (11 rows)", "1-D, n = 2^18, 2^20, 2^22, half the mask True",
                  "a subset of upstream's rows; below 2^18 elements the timing is launch overhead"),
    ),
)
