"""Index/index_fill_: fill the slices of `x` picked by `index` along `dim` with a scalar, in place."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample, tensor_bytes


def reference(dim: int, x: torch.Tensor, index: torch.Tensor, value) -> torch.Tensor:
    return x.index_fill_(dim, index, value)


def filled_bytes(call, out) -> float:
    """The index read plus the selected slices written; the rest of `x` is never touched."""
    dim, x, index = call.args[:3]
    slice_elems = x.numel() // max(x.shape[dim], 1) if x.dim() else 1
    return tensor_bytes(index) + index.numel() * slice_elems * x.element_size()


def fixed_cases(gen):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    yield "example", Call(1, x, torch.tensor([0, 2]), -1.0)
    yield "rows", Call(0, sample((9, 13), gen), torch.tensor([8, 0, 3]), 2.5)
    yield "negative_dim_and_index", Call(-1, sample((4, 6, 5), gen), torch.tensor([-1, 1, -5]), 0.0)
    yield "duplicates", Call(1, sample((5, 17), gen), torch.tensor([3, 3, 16, 3]), 7.0)
    yield "empty_index", Call(0, sample((6, 7), gen), torch.zeros(0, dtype=torch.int64), 1.0)
    yield "middle_dim", Call(1, sample((3, 11, 4), gen), torch.tensor([10, 2, 5]), -3.25)
    yield "int64_input", Call(1, torch.arange(60).reshape(6, 10), torch.tensor([0, 9, 4]), -7)
    yield "nonfinite_value", Call(0, sample((4, 5), gen), torch.tensor([1, 2]), float("inf"))
    yield "vector", Call(0, sample((100,), gen), torch.tensor([0, 99, 50]), float("nan"))
    # A strided (non-contiguous) index: its entries are every other element of a larger buffer.
    yield "strided_index", Call(1, sample((5, 9), gen), torch.tensor([8, 100, 0, 100, -2])[::2], 4.0)
    # Rank 0: a scalar x takes dim 0 and indices 0 / -1; the index is strided as well.
    yield "scalar_strided_index", Call(0, torch.tensor(3.0), torch.tensor([0, 7, -1, 7, 0])[::2], 5.0)
    # Ranks 4 and 5 (the slice has three or four dimensions besides dim).
    yield "rank4", Call(-2, sample((3, 4, 5, 6), gen), torch.tensor([4, 0, -1]), -2.0)
    yield "rank5", Call(2, sample((2, 3, 4, 5, 6), gen), torch.tensor([3, 0]), 1.5)


def random_cases(gen, mode):
    yield "vector_half", Call(0, sample((100_003,), gen, mode), randint((50_001,), gen, 0, 100_003), 1.0)
    yield "rows", Call(0, sample((1021, 257), gen, mode), randint((300,), gen, 0, 1021), 3.0)
    yield "cols", Call(1, sample((257, 1021), gen, mode), randint((511,), gen, 0, 1021), -1.5)
    yield "middle", Call(1, sample((7, 301, 67), gen, mode), randint((100,), gen, -301, 301), 0.0)
    yield "int64", Call(-1, randint((513, 129), gen, -1000, 1000), randint((40,), gen, 0, 129), 12345)


def perf_cases(gen):
    for n in (1 << 16, 1 << 20, 1 << 23):
        yield f"vector_{n}", Call(0, sample((n,), gen), randint((n // 2,), gen, 0, n), 1.0)


TASK = Task(
    id="Index/index_fill_",
    entry="index_fill_",
    signature="index_fill_(dim: int, x: Tensor, index: Tensor, value: float | int) -> Tensor",
    description="In-place x.index_fill_(dim, index, value), with the dimension as the first argument: for every "
                "entry i of the 1-D int64 tensor `index`, sets the whole slice x.select(dim, i) to `value`, and "
                "returns `x` itself. Negative `dim` counts from the end; negative indices count from the end of "
                "dimension `dim` (i + size); indices may repeat (the same value is written) and `index` may be "
                "empty. `value` is converted to x's dtype (inf and NaN are written as such for float inputs).",
    math=r"x[\ldots, i_k, \ldots] \leftarrow v \quad \forall k",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x float32 (or int64) of any rank; index int64, 1-D; returns `x` (updated in place)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0), mutates=(1,),
                      notes="Pure data movement: values must match exactly."),
    flops=lambda call, out: 0.0,
    bytes=filled_bytes,
    deviations=(
        Deviation(Kind.PERF, "1-D float32, n = 4096 … 8388608 with n/2 indices (12 rows)",
                  "1-D float32, n = 2^16, 2^20, 2^23 with n/2 indices",
                  "a subset of upstream's rows spanning its range"),
    ),
)
