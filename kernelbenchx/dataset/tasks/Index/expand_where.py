"""Index/expand_where: broadcast `input` to a target size, then pick it or `other` under a broadcast condition."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randbool, sample


def reference(input: torch.Tensor, target_sizes, cond: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.where(cond, input.expand(*target_sizes), other)


def fixed_cases(gen):
    alternating = (torch.arange(16) % 2 == 0).view(16, 1)
    yield "example", Call(sample((1, 64), gen), (16, 64), alternating, sample((16, 64), gen))
    yield "keep_dim_minus_one", Call(sample((5, 1), gen), (-1, 9), randbool((5, 9), gen), sample((5, 9), gen))
    yield "new_leading_dims", Call(sample((7,), gen), (3, 4, 7), randbool((4, 1), gen), sample((3, 4, 7), gen))
    yield "other_broadcast", Call(sample((1, 1, 6), gen), (2, 5, 6), randbool((2, 5, 6), gen), sample((1, 6), gen))
    yield "all_true", Call(sample((1, 33), gen), (8, 33), torch.ones(8, 33, dtype=torch.bool), sample((8, 33), gen))
    yield "all_false", Call(sample((1, 33), gen), (8, 33), torch.zeros(1, dtype=torch.bool), sample((8, 33), gen))
    yield "nonfinite", Call(torch.tensor([[float("nan"), float("inf")]]), (3, 2), randbool((3, 2), gen),
                            torch.tensor([[-float("inf"), float("nan")]]))
    yield "broadcast_4d", Call(sample((1, 4, 1), gen), (3, 2, -1, 5), randbool((3, 1, 4, 1), gen),
                               sample((2, 1, 5), gen))
    # rank 5: input, cond (of rank 5) and other all broadcast or expanded; other a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((1, 3, 1, 5), gen), (2, 4, -1, 6, 5), randbool((2, 1, 3, 1, 1), gen),
                               sample((2, 6, 3, 4, 5), gen).transpose(1, 3))


def random_cases(gen, mode):
    yield "rows", Call(sample((1, 1023), gen, mode), (257, 1023), randbool((257, 1), gen), sample((257, 1023), gen, mode))
    yield "cols", Call(sample((301, 1), gen, mode), (301, 513), randbool((1, 513), gen, 0.3),
                       sample((301, 513), gen, mode))
    yield "batch", Call(sample((1, 61, 1), gen, mode), (7, 61, 127), randbool((7, 61, 127), gen),
                        sample((1, 61, 127), gen, mode))


def perf_cases(gen):
    for w in (1024, 4096, 16384):
        yield f"256x{w}", Call(sample((1, w), gen), (256, w), randbool((256, 1), gen), sample((256, w), gen))


TASK = Task(
    id="Index/expand_where",
    entry="expand_where",
    signature="expand_where(input: Tensor, target_sizes: tuple[int, ...], cond: Tensor, other: Tensor) -> Tensor",
    description="Broadcasts `input` to `target_sizes` as input.expand(*target_sizes) (a -1 keeps that dimension; "
                "new leading dimensions may be added) and returns torch.where(cond, expanded, other): the "
                "expanded value where the boolean `cond` is True, else `other`. `cond` and `other` broadcast "
                "with the target shape; the output has the broadcast shape of all three and dtype float32. "
                "NaN and inf are passed through unchanged.",
    math=r"E = \mathrm{expand}(x, \mathrm{sizes});\ \mathrm{out} = \mathrm{where}(c, E, y)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, other float32; cond bool; output float32",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pure selection: values must match exactly."),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.PERF, "256 × 1024 … 256 × 16384 (5 rows)", "256 × 1024, 4096, 16384",
                  "a subset of upstream's rows spanning its range"),
    ),
)
