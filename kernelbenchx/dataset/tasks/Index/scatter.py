"""Index/scatter: out-of-place scatter of `src` into a copy of `input` along `dim` (unique targets)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, dim: int, index: torch.Tensor, src) -> torch.Tensor:
    return torch.scatter(input, dim, index, src)


def unique_index(input_shape, index_shape, dim, gen):
    """An index of `index_shape` whose entries along `dim` are distinct positions of input's `dim`, so no two
    source elements hit the same target (duplicates make torch's result order-dependent)."""
    dim = dim % len(input_shape)
    shape = list(index_shape)
    shape[dim] = input_shape[dim]
    keys = uniform(shape, gen)
    return keys.argsort(dim=dim).narrow(dim, 0, index_shape[dim]).contiguous()


def case(input_shape, dim, index_shape, gen, mode="standard", src_shape=None):
    index = unique_index(input_shape, index_shape, dim, gen)
    return Call(sample(input_shape, gen, mode), dim, index, sample(src_shape or index_shape, gen, mode))


def fixed_cases(gen):
    src = torch.arange(1.0, 11.0).reshape(2, 5)
    yield "example", Call(torch.zeros(3, 5), 0, torch.tensor([[0, 1, 2, 0]]), src)
    yield "dim1", Call(torch.zeros(3, 5), 1, torch.tensor([[0, 1, 2], [4, 3, 0]]), src)
    yield "negative_dim", case((4, 6, 5), -1, (4, 6, 3), gen)
    yield "smaller_index", case((9, 13), 0, (4, 7), gen, src_shape=(6, 10))
    yield "middle_dim", case((3, 11, 4), 1, (2, 11, 3), gen)
    yield "scalar_value", Call(sample((5, 8), gen), 1, unique_index((5, 8), (5, 3), 1, gen), -2.5)
    yield "empty_index", Call(sample((4, 4), gen), 0, torch.zeros(0, 4, dtype=torch.int64), sample((2, 4), gen))
    yield "vector", case((100,), 0, (37,), gen)
    yield "rank4", case((3, 4, 5, 6), 2, (2, 3, 4, 5), gen, src_shape=(3, 3, 5, 6))
    # rank 5: input a transposed (non-contiguous) view, index and src smaller than it along other dims
    inp = sample((2, 6, 4, 5, 3), gen).transpose(1, 4)
    yield "rank5_dim0", Call(inp, 0, unique_index(inp.shape, (2, 2, 4, 3, 6), 0, gen), sample((2, 3, 4, 4, 6), gen))
    yield "rank5_scalar_negative_dim", Call(sample((2, 3, 2, 5, 4), gen), -2,
                                            unique_index((2, 3, 2, 5, 4), (1, 3, 2, 3, 2), -2, gen), 1.5)


def random_cases(gen, mode):
    yield "rows", case((1021, 129), 0, (511, 129), gen, mode)
    yield "cols_src_larger", case((257, 1021), 1, (200, 300), gen, mode, src_shape=(257, 400))
    yield "middle", case((7, 301, 67), 1, (7, 150, 67), gen, mode)


def perf_cases(gen):
    for rows in (256, 2048, 8192):
        yield f"rows_{rows}x128", case((rows, 128), 0, (rows // 2, 128), gen)


TASK = Task(
    id="Index/scatter",
    entry="scatter",
    signature="scatter(input: Tensor, dim: int, index: Tensor, src: Tensor | float) -> Tensor",
    description="Out-of-place torch.scatter: returns a copy of `input` in which, for every position p of the "
                "int64 tensor `index` (same rank as input), the element at p with its coordinate along `dim` "
                "replaced by index[p] is set to src[p] (or to the scalar `src`). For dim = 0 on 2-D: "
                "out[index[i][j]][j] = src[i][j]. index.size(d) ≤ src.size(d) for all d and "
                "index.size(d) ≤ input.size(d) for d ≠ dim; only the leading index-shaped block of src is used. "
                "Negative `dim` counts from the end. Test indices never send two elements to the same target. "
                "The output has input's shape and dtype; `input` is not modified.",
    math=r"\mathrm{out}[\mathrm{index}[i][j][k]][j][k] = \mathrm{src}[i][j][k]\ (\dim=0)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, src float32; index int64 with input's rank; output float32, input's shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pure data movement: values must match exactly. Targets are unique, so the result does "
                            "not depend on write order."),
    flops=lambda call, out: 0.0,
    deviations=(
        Deviation(Kind.PERF, "(256 … 8192) × 128 with a (rows/2) × 128 index (6 rows)",
                  "256, 2048, 8192 rows × 128 with a (rows/2) × 128 index",
                  "a subset of upstream's rows spanning its range"),
    ),
)
