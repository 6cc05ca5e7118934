"""Math/softmax: softmax along one dimension, optionally computed in another dtype."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return F.softmax(input, dim=dim, dtype=dtype)


def masked_prefix(x: torch.Tensor, dim: int, gen: torch.Generator, full: float = 0.1) -> torch.Tensor:
    """`x` with a -inf prefix of random length along `dim` in every slice: the first block a kernel reads is
    often entirely -inf, and about a fraction `full` of the slices are -inf throughout (NaN in torch)."""
    x = x.movedim(dim, -1)
    n = x.shape[-1]
    lengths = torch.randint(0, n + 1, x.shape[:-1], generator=gen)
    lengths = torch.where(torch.rand(x.shape[:-1], generator=gen) < full, n, lengths)
    masked = torch.arange(n) < lengths.unsqueeze(-1)
    return torch.where(masked, float("-inf"), x).movedim(-1, dim).contiguous()


def fixed_cases(gen):
    inf = float("inf")
    yield "small_rows", Call(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 5.0, 2.0]]), 1)
    # needs the row maximum subtracted: exp(1e4) overflows
    yield "large_logits", Call(torch.tensor([[1e4, 1e4 - 1.0, 0.0, -1e4], [-1e4, -1e4, -1e4, -2e4]]), -1)
    # -inf entries get probability 0; a row of only -inf gives NaN in torch
    yield "masked", Call(torch.tensor([[0.0, -inf, 1.0, -inf], [-inf, -inf, -inf, -inf], [-inf, 3.0, -inf, -inf]]),
                         1)
    yield "dim0", Call(sample((65, 33), gen) * 4, 0)
    yield "middle_dim", Call(sample((3, 17, 5), gen), 1)
    yield "length_one", Call(sample((7, 1), gen), -1)
    yield "float64_dtype", Call(sample((9, 100), gen) * 10, -1, torch.float64)
    yield "long_row", Call(sample((2, 5000), gen) * 3, 1)
    # the first 16384 entries of a row (and the first 4500 of a column) are -inf: a block-wise kernel sees whole
    # blocks of -inf before any finite value; the last row / column is -inf throughout
    rows = sample((3, 20000), gen)
    rows[:2, :16384] = -inf
    rows[2] = -inf
    yield "rows_masked_prefix", Call(rows, -1)
    cols = sample((5000, 3), gen)
    cols[:4500, :2] = -inf
    cols[:, 2] = -inf
    yield "cols_masked_prefix", Call(cols, 0)
    # columns of 600 (block-wise: 600 is not a multiple of the block) in a contiguous prefix of a longer
    # buffer: finite values follow the view in memory
    yield "cols_buffer_prefix", Call(sample((601, 16), gen)[:600], 0)
    # rows of 16400 (longer than a register-resident row, so block-wise) lying entirely near -1e4: a running
    # maximum that starts at 0 instead of -inf underflows every exp and the sum to 0
    yield "long_rows_shifted", Call(sample((2, 16400), gen) - 1e4, -1)


def random_cases(gen, mode):
    yield "rows", Call(sample((129, 1025), gen, mode) * 3, -1)
    yield "cols", Call(sample((1025, 65), gen, mode), 0)
    yield "middle", Call(sample((4, 257, 63), gen, mode) * 5, 1)
    yield "long_rows_f64", Call(sample((2, 50_001), gen, mode), 1, dtype=torch.float64)
    yield "masked_rows", Call(masked_prefix(sample((33, 10_000), gen, mode) * 3, 1, gen), 1)
    yield "masked_cols_f64", Call(masked_prefix(sample((1500, 33), gen, mode), 0, gen), -2, torch.float64)
    yield "masked_middle", Call(masked_prefix(sample((3, 700, 17), gen, mode) * 5, 1, gen), 1)


def perf_cases(gen):
    yield "rows_1024x1024", Call(sample((1024, 1024), gen), -1)
    yield "rows_1024x16384", Call(sample((1024, 16384), gen), -1)
    yield "rows_1024x524288", Call(sample((1024, 524288), gen), -1)
    yield "cols_8192x8192", Call(sample((8192, 8192), gen), 0)


TASK = Task(
    id="Math/softmax",
    entry="softmax",
    signature="softmax(input: Tensor, dim: int, dtype: torch.dtype | None = None) -> Tensor",
    description="Applies softmax along dimension `dim` (negative values count from the end): every slice along "
                "`dim` becomes exp(x_i − max_j x_j) / Σ_j exp(x_j − max_j x_j), values in [0, 1] summing to 1. "
                "When `dtype` is given (e.g. torch.float64), the input is cast to it first, the computation runs "
                "in it and the output has it; otherwise the output is float32. The result has the input's shape. "
                "Subtracting the maximum is required (logits up to ±1e4 appear, and a whole "
                "slice may lie far below 0). -inf entries get probability 0; "
                "a slice whose entries are all -inf gives NaN, as in torch.",
    math=r"\mathrm{softmax}(x)_i = \frac{e^{x_i - m}}{\sum_j e^{x_j - m}},\quad m = \max_j x_j",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, or `dtype` when given (float64)",
                      tolerance=Tolerance(rtol=1e-4, atol=1e-6),
                      notes="Summation order is free. rtol is 1e-4 because torch's own float32 softmax (the "
                            "reference) sums non-last dimensions sequentially: when one entry dominates a slice, "
                            "the small terms fall below half an ulp of the running sum and are lost, up to "
                            "D·2⁻²⁴ relative (1.3e-5 measured at D = 1025 on CPU and H100). atol is 1e-6, not "
                            "1e-5, since every output is a probability ≤ 1 and the entries of long slices are "
                            "≈ 1/D."),
    flops=input_flops(5),
    choices={"dtype": (None, torch.float64)},
    notes={"nonfinite_ok": "stage 2 draws slices that are -inf throughout, whose softmax is NaN in torch"},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "rtol 1e-4, atol 1e-6",
                  "torch's float32 reference sums non-last dimensions sequentially and loses terms below half an "
                  "ulp of the running sum, up to D·2⁻²⁴ relative (1.3e-5 measured at D = 1025), so 1e-5 can "
                  "reject an exact kernel; atol drops to 1e-6 because the outputs are probabilities ≈ 1/D"),
        Deviation(Kind.COVERAGE, "finite N(0,1) logits of 64×128 and 100×100, dims 0, 1, -1, fp32 and fp64",
                  "also logits up to ±1e4, -inf entries, slices whose first blocks are -inf and slices that are "
                  "-inf throughout (NaN), middle dims, slices of length 1 and up to 50001",
                  "softmax kernels typically fail on the masked (-inf) slices attention produces, and on "
                  "overflow without the max subtraction"),
        Deviation(Kind.COVERAGE, "inputs that own their whole storage",
                  "adds dim 0 of a 600×16 contiguous prefix of a 601×16 buffer",
                  "a kernel that stores one element past the end (a bound off by one) writes a finite value into the output's guard band, which a NaN read from a fresh input's poison band would not disturb"),
        Deviation(Kind.PERF, "16 fp32 inputs of 1024×16 … 1024×524288, last dim, times summed",
                  "rows of 1024×1024, 1024×16384 and 1024×524288, plus columns of 8192×8192 (dim 0)",
                  "three of upstream's sizes spanning its range, each timed on its own; the column case times the "
                  "strided reduction the correctness cases test and upstream's sweep does not"),
    ),
)
