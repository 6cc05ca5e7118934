"""Fusion/fused_repeat_interleave_log_softmax: log-softmax of a tensor repeated element-wise along a dimension."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, permutation, randint, sample, uniform


def reference(input: torch.Tensor, repeats, dim=None, *, output_size=None, dtype=None) -> torch.Tensor:
    repeated = torch.repeat_interleave(input, repeats, dim=dim, output_size=output_size)
    # dim=None flattens, so the repeated tensor is 1-D and its only dimension is 0. The log-sum-exp is taken
    # in float64: torch's CPU kernel sums long rows sequentially in fp32 (errors of 5e-5 at 5·10^4 terms),
    # which would make the expected values less accurate than the kernels judged against them.
    out_dtype = dtype if dtype is not None else repeated.dtype
    return F.log_softmax(repeated.to(torch.float64), dim=0 if dim is None else dim).to(out_dtype)


def fixed_cases(gen):
    yield "example_flat", Call(torch.tensor([1.0, 2.0, 3.0]), 2)
    yield "rows_dim1", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, dim=1)
    yield "float64_flat", Call(torch.tensor([1.0, 2.0, 3.0]), 3, dtype=torch.float64)
    yield "cols_dim0", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, dim=0, dtype=torch.float32)
    yield "tensor_repeats", Call(sample((9, 7), gen), torch.tensor([1, 0, 3, 2, 1, 1, 4]), 1)
    yield "tensor_repeats_output_size", Call(sample((5, 4, 3), gen), torch.tensor([2, 1, 1, 3]), -2,
                                             output_size=7)
    yield "flatten_2d", Call(sample((3, 4), gen), torch.arange(12) % 3 + 1)
    yield "single_repeat", Call(sample((6, 10), gen) * 30.0, 1, -1)
    yield "large_values", Call(torch.tensor([[1000.0, -1000.0, 0.0], [88.0, 89.0, 90.0]]), 3, 1)
    yield "zero_repeat_scalar", Call(sample((2, 5), gen), 0, 0)
    # the first 128 of 160 elements along dim 0 are dropped (zero repeats): a blocked or split reduction along dim
    # meets whole blocks with nothing to reduce before the first kept element
    yield "leading_zero_repeats", Call(sample((160, 16), gen),
                                       torch.cat([torch.zeros(128, dtype=torch.int64), randint((32,), gen, 1, 4)]), 0)
    # rows near ±1e4: (x − max) − log Σ is accurate, while max + log Σ rounded to one float32 and subtracted
    # from x is off by up to half an ulp of 1e4 (5e-4), far outside 1e-5
    yield "large_magnitude_rows", Call(torch.tensor([[10000.0, 9999.0, 9998.5], [-9000.0, -9000.25, -9001.0]]), 2, 1)


def random_cases(gen, mode):
    yield "rows_repeat2", Call(sample((32, 128), gen, mode), 2, dim=1, dtype=torch.float32)
    yield "vector_tensor_repeats", Call(sample((64,), gen, mode), randint((64,), gen, 1, 4), dim=0)
    yield "cols_tensor_repeats_float64", Call(sample((37, 129), gen, mode), randint((37,), gen, 0, 5), 0,
                                              dtype=torch.float64)
    yield "flatten_3d", Call(sample((4, 31, 127), gen, mode), 3)


def perf_cases(gen):
    yield "n2^16_x2", Call(uniform((1 << 16,), gen), 2, 0)
    yield "n2^23_x2", Call(uniform((1 << 23,), gen), 2, 0)
    yield "rows_8192x4096_x2", Call(sample((8192, 4096), gen), 2, 1)
    # Repeats 1, 2, 3 in random order, so their sum (the output_size) is known without reading them.
    repeats = permutation(4095, gen) % 3 + 1
    yield "rows_8192x4095_tensor", Call(sample((8192, 4095), gen), repeats, -1, output_size=8190)


def flops(call, out):
    return 4 * out.numel()


TASK = Task(
    id="Fusion/fused_repeat_interleave_log_softmax",
    entry="fused_repeat_interleave_log_softmax",
    signature="fused_repeat_interleave_log_softmax(input: Tensor, repeats: int | Tensor, dim: int | None = None, "
              "*, output_size: int | None = None, dtype: torch.dtype | None = None) -> Tensor",
    description="Repeats each element of input along `dim` as torch.repeat_interleave(input, repeats, dim, "
                "output_size=output_size): element i along dim appears repeats (an int) or repeats[i] (an int64 "
                "1-D tensor with one entry per element along dim; zeros drop the element) consecutive times; "
                "with dim=None the input is flattened first (row-major) and the result is 1-D. output_size, when "
                "given, is the total length along dim (the sum of the repeats). Then log-softmax along the same "
                "dim (dim 0 of the flattened result when dim is None): y − max y − log Σ exp(y − max y), which "
                "must stay finite for large values. When dtype is given, the repeated tensor is cast to it "
                "before the log-softmax and the output has that dtype; otherwise float32.",
    math=r"Y = \mathrm{repeat\_interleave}(X, r, \mathrm{dim}),\quad Z_i = Y_i - \log\sum_j e^{Y_j}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; repeats int or int64 tensor; output float32, or `dtype` when given",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free. The log-sum-exp's error is relative to the sum (a few "
                            "ulp for blocked or tree sums, whatever the length), so the output's absolute error "
                            "stays far inside atol + rtol·|out| (|out| ≈ log n for long rows)."),
    flops=flops,
    deviations=(
        Deviation(Kind.COVERAGE, "int repeats on 2×2 and 32×128 inputs and tensor repeats 1…3 on 64-element "
                  "vectors; output_size never passed",
                  "adds tensor repeats with zeros (dropped elements), output_size, dim=None on 2-D and 3-D "
                  "inputs (flattened), negative dims, float64 and values of ±1000",
                  "these are the arguments of the signature; large values test the max-shifted log-sum-exp"),
        Deviation(Kind.PERF, "12 sizes, 1-D 2^12 … 2^23 elements, repeats = 2, dim = 0",
                  "1-D 2^16 and 2^23 elements (repeats 2, dim 0), plus 8192 rows of 4096 (repeats 2) and of "
                  "4095 with tensor repeats 1…3 along dim −1",
                  "a subset of upstream's sizes plus the row-wise and tensor-repeat forms, which upstream "
                  "never times"),
    ),
)
