"""Fusion/fused_index_select_eq: select slices along a dimension, then compare them for equality."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample, tensor_bytes


def reference(input: torch.Tensor, dim: int, index: torch.Tensor, other) -> torch.Tensor:
    return torch.eq(torch.index_select(input, dim, index), other)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1, 2], [3, 4], [5, 6]]), 0, torch.tensor([0, 2]),
                          torch.tensor([[1, 2], [5, 6]]))
    yield "scalar_other", Call(randint((9, 7), gen, 0, 3), 1, torch.tensor([6, 0, 0, 3]), 1)
    yield "broadcast_row", Call(randint((12, 5), gen, 0, 2), 0, randint((20,), gen, 0, 12), randint((5,), gen, 0, 2))
    yield "negative_dim_3d", Call(randint((3, 4, 6), gen, 0, 3), -1, torch.tensor([5, 1, 1]),
                                  randint((3, 4, 1), gen, 0, 3))
    yield "float_nan_and_zero", Call(torch.tensor([[0.0, -0.0, float("nan")], [1.5, float("inf"), 2.0]]), 0,
                                     torch.tensor([1, 0, 1]), torch.tensor([1.5, 0.0, 2.0]))
    yield "int32_index", Call(randint((10, 3), gen, 0, 2), 0, torch.tensor([9, 8, 0], dtype=torch.int32), 0)
    yield "int64_beyond_int32", Call(torch.tensor([[2 ** 40 + 1, 5], [2 ** 40, 2 ** 33]]), 1, torch.tensor([1, 0, 0]),
                                     torch.tensor([[5, 2 ** 40 + 1, 2 ** 40], [2 ** 33, 2 ** 40, 2 ** 40 + 1]]))
    yield "int_input_float_scalar", Call(randint((6, 4), gen, -1, 2), 0, torch.tensor([5, 1]), 0.0)
    yield "empty_index", Call(randint((5, 3), gen, 0, 2), 0, torch.zeros(0, dtype=torch.int64), 1)
    # input every other column of a wider buffer (innermost stride 2) selected along dim 0: the layout cases
    # derive from negative_dim_3d, whose trailing size after dim is 1, so only here is that stride read
    yield "strided_input_dim0", Call(randint((12, 10), gen, 0, 3)[:, ::2], 0, randint((20,), gen, 0, 12),
                                     randint((5,), gen, 0, 3))
    # float32 values that float16 does not hold exactly, compared with the same selection, half of it moved
    # by one float32 ulp: only a float32 comparison gets both the equal and the unequal entries right
    x = sample((8, 6), gen)
    index = torch.tensor([3, 0, 3, 7, 5])
    other = torch.index_select(x, 0, index)
    other[:, ::2] = torch.nextafter(other[:, ::2], torch.tensor(float("inf")))
    yield "float32_one_ulp", Call(x, 0, index, other)


def random_cases(gen, mode):
    yield "rows_scalar", Call(randint((1000, 128), gen, 0, 4), 0, randint((700,), gen, 0, 1000), 0)
    yield "cols_tensor", Call(randint((129, 300), gen, -2, 2), 1, randint((257,), gen, 0, 300),
                              randint((129, 257), gen, -2, 2))
    yield "float_rounded", Call(torch.round(sample((64, 33, 40), gen, mode)), 1, randint((50,), gen, 0, 33),
                                torch.round(sample((64, 1, 40), gen, mode)))


def perf_cases(gen):
    for rows in (4096, 1 << 19, 1 << 23):
        yield f"rows_{rows}x128", Call(randint((rows, 128), gen, 0, 4), 0, randint((rows // 8,), gen, 0, rows), 0.0)
    yield "cols_16384x4096", Call(randint((16384, 4096), gen, 0, 4), 1, randint((2048,), gen, 0, 4096),
                                  randint((16384, 1), gen, 0, 4))


def compulsory_bytes(call: Call, out) -> float:
    """The selected slices (one input element per output element), the index, other and the bool output: the
    rest of input is never read."""
    x, index, other = call.args[0], call.args[2], call.args[3]
    return out.numel() * (x.element_size() + 1.0) + tensor_bytes(index) + tensor_bytes(other)


TASK = Task(
    id="Fusion/fused_index_select_eq",
    entry="fused_index_select_eq",
    signature="fused_index_select_eq(input: Tensor, dim: int, index: Tensor, other: Tensor | int | float) -> Tensor",
    description="Selects S = index_select(input, dim, index): along dimension `dim` (negative allowed), output "
                "position j takes input's slice index[j] (index is a 1-D int64 or int32 tensor of valid positions, "
                "repeats allowed). Returns the bool tensor S == other, where other is a tensor broadcastable to "
                "S's shape or a Python number (values are compared after type promotion; NaN is never equal, "
                "-0.0 == 0.0). The output has S's shape (broadcast with other). The upstream `out=` argument is "
                "dropped.",
    math=r"O = (\mathrm{index\_select}(X, \mathrm{dim}, I) = Y)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input int64 (float32 in some cases); index int64 (or int32); other tensor of "
                             "input's dtype or Python number; output bool",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="The output is boolean and compared exactly."),
    flops=elementwise_flops(1),
    bytes=compulsory_bytes,
    unit="int",
    deviations=(
        Deviation(Kind.PERF, "12 sizes: int64 (n, 128) inputs with n = 4096 … 8388608, n/8 indices along dim 0, "
                  "other = 0.0", "n = 4096, 524288 and 8388608 of those, and a dim-1 selection from 16384×4096 "
                  "compared with a column tensor", "three of upstream's sizes, plus the strided (dim 1) gather "
                  "and a tensor `other` that upstream never times"),
    ),
)
