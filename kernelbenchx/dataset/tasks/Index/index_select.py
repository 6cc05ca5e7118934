"""Index/index_select: gather whole slices of `input` along `dim` at the positions listed in a 1-D index."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample, tensor_bytes


def reference(input: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    return torch.index_select(input, dim, index)


def fixed_cases(gen):
    yield "example", Call(sample((8, 16), gen), 0, torch.tensor([0, 3, 7]))
    yield "columns", Call(sample((9, 13), gen), 1, torch.tensor([12, 0, 5, 5]))
    yield "negative_dim", Call(sample((4, 6, 5), gen), -1, torch.tensor([4, 0]))
    yield "middle_dim", Call(sample((3, 11, 4), gen), 1, torch.tensor([10, 2, 5, 10, 0]))
    yield "empty_index", Call(sample((6, 7), gen), 0, torch.zeros(0, dtype=torch.int64))
    yield "int32_index", Call(sample((50, 3), gen), 0, torch.tensor([49, 1, 1, 0], dtype=torch.int32))
    yield "int64_data", Call(torch.arange(60).reshape(6, 10), 1, torch.tensor([9, 0, 4]))
    yield "vector", Call(sample((100,), gen), 0, torch.tensor([99, 0, 50, 50]))
    yield "nonfinite", Call(torch.tensor([[float("nan"), 1.0], [float("inf"), -float("inf")]]), 0,
                            torch.tensor([1, 0, 1]))


def random_cases(gen, mode):
    yield "embedding_rows", Call(sample((4099, 65), gen, mode), 0, randint((1025,), gen, 0, 4099))
    yield "cols", Call(sample((257, 1021), gen, mode), 1, randint((511,), gen, 0, 1021))
    yield "middle", Call(sample((7, 301, 67), gen, mode), 1, randint((200,), gen, 0, 301))


def perf_cases(gen):
    for rows in (4096, 32768, 131072):
        yield f"rows_{rows}x256", Call(sample((rows, 256), gen), 0, randint((rows // 8,), gen, 0, rows))


TASK = Task(
    id="Index/index_select",
    entry="index_select",
    signature="index_select(input: Tensor, dim: int, index: Tensor) -> Tensor",
    description="Returns a new tensor with the slices of `input` along dimension `dim` (negative counts from the "
                "end) at the positions in the 1-D integer tensor `index` (int64 or int32, values in "
                "[0, input.size(dim)), repeats allowed, possibly empty), in index order, like torch.index_select. "
                "The output has input's shape except output.size(dim) == len(index), and input's dtype.",
    math=r"\mathrm{out}[\ldots, k, \ldots] = x[\ldots, I_k, \ldots]",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int64) of any rank; index int64 or int32, 1-D; output input's dtype",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pure data movement: values must match exactly (NaN where the input has NaN)."),
    flops=lambda call, out: 0.0,
    # A gather: the index, the selected slices (as many as the output holds) and the output.
    bytes=lambda call, out: tensor_bytes(call.args[2]) + 2.0 * tensor_bytes(out),
    deviations=(
        Deviation(Kind.PERF, "rows of (4096 … 131072) × 256 with rows/8 indices (6 rows)",
                  "rows of 4096, 32768, 131072 × 256 with rows/8 indices",
                  "a subset of upstream's rows spanning its range"),
    ),
)
