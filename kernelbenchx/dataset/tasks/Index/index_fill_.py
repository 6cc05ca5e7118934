"""Index/index_fill_: fill the slices of `input` picked by `index` along `dim` with a scalar, in place."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randint, sample, tensor_bytes


def reference(input: torch.Tensor, dim: int, index: torch.Tensor, value) -> torch.Tensor:
    return input.index_fill_(dim, index, value)


def filled_bytes(call, out) -> float:
    """The index read plus the selected slices written; the rest of `input` is never touched."""
    input, dim, index = call.args[:3]
    slice_elems = input.numel() // max(input.shape[dim], 1) if input.dim() else 1
    return tensor_bytes(index) + index.numel() * slice_elems * input.element_size()


def fixed_cases(gen):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    yield "example", Call(x, 1, torch.tensor([0, 2]), -1.0)
    yield "rows", Call(sample((9, 13), gen), 0, torch.tensor([8, 0, 3]), 2.5)
    yield "negative_dim_and_index", Call(sample((4, 6, 5), gen), -1, torch.tensor([-1, 1, -5]), 0.0)
    yield "duplicates", Call(sample((5, 17), gen), 1, torch.tensor([3, 3, 16, 3]), 7.0)
    yield "empty_index", Call(sample((6, 7), gen), 0, torch.zeros(0, dtype=torch.int64), 1.0)
    yield "middle_dim", Call(sample((3, 11, 4), gen), 1, torch.tensor([10, 2, 5]), -3.25)
    yield "int64_input", Call(torch.arange(60).reshape(6, 10), 1, torch.tensor([0, 9, 4]), -7)
    yield "nonfinite_value", Call(sample((4, 5), gen), 0, torch.tensor([1, 2]), float("inf"))
    yield "vector", Call(sample((100,), gen), 0, torch.tensor([0, 99, 50]), float("nan"))


def random_cases(gen, mode):
    yield "rows", Call(sample((1021, 257), gen, mode), 0, randint((300,), gen, 0, 1021), 3.0)
    yield "cols", Call(sample((257, 1021), gen, mode), 1, randint((511,), gen, 0, 1021), -1.5)
    yield "middle", Call(sample((7, 301, 67), gen, mode), 1, randint((100,), gen, -301, 301), 0.0)
    yield "int64", Call(randint((513, 129), gen, -1000, 1000), -1, randint((40,), gen, 0, 129), 12345)


def perf_cases(gen):
    yield "vector_2^22", Call(sample((1 << 22,), gen), 0, randint((1 << 21,), gen, 0, 1 << 22), 1.0)
    yield "rows_8192x8192", Call(sample((8192, 8192), gen), 0, randint((4096,), gen, 0, 8192), 1.0)
    yield "cols_8192x8192", Call(sample((8192, 8192), gen), 1, randint((4096,), gen, 0, 8192), 1.0)


TASK = Task(
    id="Index/index_fill_",
    entry="index_fill_",
    signature="index_fill_(input: Tensor, dim: int, index: Tensor, value: float | int) -> Tensor",
    description="In-place version of torch.Tensor.index_fill_: for every entry i of the 1-D int64 tensor `index`, "
                "sets the whole slice input.select(dim, i) to `value`, and returns `input` itself. Negative `dim` "
                "counts from the end; negative indices count from the end of dimension `dim` (i + size); indices "
                "may repeat (the same value is written) and `index` may be empty. `value` is converted to the "
                "input's dtype (inf and NaN are written as such for float inputs).",
    math=r"x[\ldots, i_k, \ldots] \leftarrow v \quad \forall k",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int64) of any rank; index int64, 1-D; returns `input` "
                             "(updated in place)",
                      tolerance=Tolerance(rtol=0.0, atol=0.0), mutates=(0,),
                      notes="Pure data movement: values must match exactly."),
    flops=lambda call, out: 0.0,
    bytes=filled_bytes,
)
