"""Fusion/fused_gather_masked_fill: gather along a dimension, then fill masked positions with a value."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randbool, randint, sample, tensor_bytes


def reference(input: torch.Tensor, dim: int, index: torch.Tensor, mask: torch.Tensor, value: float) -> torch.Tensor:
    return torch.gather(input, dim, index).masked_fill(mask, value)


def fixed_cases(gen):
    yield "example_int", Call(torch.tensor([[1, 2], [3, 4]]), 1, torch.tensor([[0, 0], [1, 0]]),
                              torch.tensor([[True, False], [False, True]]), -1)
    yield "rows", Call(sample((6, 5), gen), 0, randint((4, 5), gen, 0, 6), randbool((4, 5), gen), 0.5)
    yield "smaller_index", Call(sample((7, 9), gen), 1, randint((3, 4), gen, 0, 9), randbool((3, 4), gen), -2.0)
    yield "broadcast_mask_row", Call(sample((5, 8), gen), 1, randint((5, 8), gen, 0, 8),
                                     torch.tensor([True, False, False, True, False, False, False, True]), 7.0)
    yield "broadcast_mask_column_inf", Call(sample((4, 3, 6), gen), -1, randint((4, 3, 2), gen, 0, 6),
                                            randbool((4, 1, 2), gen), float("-inf"))
    yield "nan_fill_middle_dim", Call(sample((3, 10, 4), gen), 1, randint((3, 12, 4), gen, 0, 10),
                                      randbool((3, 12, 4), gen), float("nan"))
    yield "empty_index", Call(sample((4, 5), gen), 0, torch.zeros(0, 5, dtype=torch.int64),
                              torch.zeros(0, 5, dtype=torch.bool), 1.0)
    yield "int64_beyond_int32", Call(torch.tensor([[2 ** 40 + 1, -(2 ** 35)], [7, 2 ** 33]]), 0,
                                     torch.tensor([[1, 0], [0, 1]]), torch.tensor([False, True]), 2 ** 34 + 3)


def random_cases(gen, mode):
    yield "rows_dim0", Call(sample((1024, 257), gen, mode), 0, randint((1000, 257), gen, 0, 1024),
                            randbool((1000, 257), gen), 0.5)
    yield "cols_dim1_row_mask", Call(sample((129, 700), gen, mode), 1, randint((129, 513), gen, 0, 700),
                                     randbool((513,), gen, 0.3), -3.25)
    yield "3d_dim2", Call(sample((16, 31, 130), gen, mode), 2, randint((16, 31, 200), gen, 0, 130),
                          randbool((16, 31, 200), gen, 0.1), 0.0)


def perf_cases(gen):
    for rows in (32, 1024, 4096):
        yield f"rows_{rows}x1024", Call(sample((rows, 1024), gen), 0, randint((rows, 1024), gen, 0, rows),
                                        randbool((rows, 1024), gen), 0.5)
    yield "cols_16384x4096", Call(sample((16384, 4096), gen), 1, randint((16384, 4096), gen, 0, 4096),
                                  randbool((16384, 4096), gen), 0.5)


TASK = Task(
    id="Fusion/fused_gather_masked_fill",
    entry="fused_gather_masked_fill",
    signature="fused_gather_masked_fill(input: Tensor, dim: int, index: Tensor, mask: Tensor, value: float) "
              "-> Tensor",
    description="Computes Y = torch.gather(input, dim, index): Y has index's shape and, for dim = d, "
                "Y[i₀, …, i_d, …] = input[i₀, …, index[i₀, …, i_d, …], …] (index is int64 with the same number of "
                "dims as input, each size ≤ input's except along dim, values in [0, input.size(dim)); dim may be "
                "negative). Then every position where the bool `mask` is True (mask broadcasts to Y's shape) is "
                "replaced by `value` (a Python number, possibly ±inf or NaN). Returns a new tensor of input's "
                "dtype. The upstream `sparse_grad` (gradient only) and `out=` arguments are dropped.",
    math=r"Y = \mathrm{gather}(X, \mathrm{dim}, I),\quad Y[M] = \mathrm{value}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (int64 in one stage-1 case); index int64; mask bool; output input's "
                          "dtype with index's shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pure data movement: values must be copied exactly."),
    flops=lambda call, out: 0.0,
    bytes=lambda call, out: tensor_bytes(call.args[2]) + tensor_bytes(call.args[3]) + 2.0 * tensor_bytes(out),
    deviations=(
        Deviation(Kind.PERF, "8 sizes, (n, 1024) float32 with n = 32 … 4096, gathered along dim 0 with a full-size "
                  "mask, value 0.5", "n = 32, 1024 and 4096 of those, plus a dim-1 gather of 16384×4096",
                  "three of upstream's sizes; its largest moves only 64 MB, so a 1 GB gather along the last dim "
                  "is added to time the bandwidth-bound regime"),
    ),
)
