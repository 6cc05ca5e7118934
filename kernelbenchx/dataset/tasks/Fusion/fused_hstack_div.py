"""Fusion/fused_hstack_div: horizontally stack tensors, then divide (true, truncating or flooring)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.layouts import sliced, transposed
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(tensors, divisor, *, rounding_mode=None) -> torch.Tensor:
    return torch.div(torch.hstack(tensors), divisor, rounding_mode=rounding_mode)


def nonzero(shape, gen, mode="standard"):
    """Divisors bounded away from zero, both signs."""
    d = sample(shape, gen, mode)
    return torch.where(d < 0, d - 0.25, d + 0.25)


def fixed_cases(gen):
    yield "vectors_scalar", Call([torch.arange(-5.0, 6.0), torch.linspace(-2.0, 2.0, 7)], 2.0)
    yield "matrices_row_divisor", Call([sample((4, 3), gen), sample((4, 5), gen)], nonzero((8,), gen))
    yield "divide_by_zero", Call([torch.tensor([[1.0, -1.0], [0.0, 2.0]]), torch.tensor([[0.0], [-3.0]])],
                                 torch.tensor([0.0, 0.0, 0.0]))
    yield "trunc", Call([sample((6, 2), gen) * 5, sample((6, 3), gen) * 5], nonzero((6, 1), gen),
                        rounding_mode="trunc")
    yield "floor", Call([sample((6, 2), gen) * 5, sample((6, 3), gen) * 5], nonzero((6, 5), gen),
                        rounding_mode="floor")
    yield "floor_negative_scalar", Call([torch.arange(-7.0, 8.0)], -2.0, rounding_mode="floor")
    # Quotients whose rounded a / b lands on the integer above the true floor.
    yield "floor_inexact_quotients", Call([torch.tensor([[0.3, -0.3, 1.0], [0.7, 2.3, -5.0]]), torch.zeros(2, 0)],
                                          torch.tensor([0.1, 0.1, 0.1]), rounding_mode="floor")
    yield "three_3d", Call([sample((2, 1, 3), gen), sample((2, 4, 3), gen), sample((2, 2, 3), gen)],
                           nonzero((2, 7, 3), gen))
    # The layout cases relay only top-level tensors, not the list: stacked tensors that are themselves
    # non-contiguous views (a padded row stride, every dimension reversed, an inner stride of 2).
    yield "strided_stacked_views", Call([sliced(sample((2, 3, 4), gen)), transposed(sample((2, 2, 4), gen)),
                                         sample((2, 4, 8), gen)[:, :, ::2]], nonzero((2, 9, 4), gen))
    yield "int64_true_division", Call([torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([[7], [-8]])], 2)
    yield "int64_floor", Call([torch.tensor([7, -7, 9]), torch.tensor([-9, 0])],
                              torch.tensor([2, 2, -2, -2, 3]), rounding_mode="floor")
    yield "int64_beyond_int32_trunc", Call([torch.tensor([2 ** 40 + 3, -(2 ** 35) - 1]), torch.tensor([2 ** 33 + 5])],
                                           7, rounding_mode="trunc")
    # a 0-dim tensor divisor promotes only across categories (torch.result_type): float32 ÷ a float64 scalar
    # tensor stays float32
    yield "zero_dim_float64_divisor", Call([sample((3, 2), gen), sample((3, 4), gen)],
                                           torch.tensor(-1.5, dtype=torch.float64))


def random_cases(gen, mode):
    yield "vectors_scalar", Call([sample((40_001,), gen, mode), sample((25_007,), gen, mode)], 0.3)
    yield "matrices_tensor", Call([sample((129, 100), gen, mode), sample((129, 157), gen, mode)],
                                  nonzero((129, 257), gen, mode))
    yield "trunc_row_divisor", Call([sample((65, 61), gen, mode) * 8, sample((65, 3), gen, mode) * 8],
                                    nonzero((64,), gen, mode), rounding_mode="trunc")
    yield "floor_column_divisor", Call([sample((63, 200), gen, mode) * 8, sample((63, 57), gen, mode) * 8],
                                       nonzero((63, 1), gen, mode), rounding_mode="floor")


def perf_cases(gen):
    yield "vectors_2x2^20", Call([sample((1 << 20,), gen), sample((1 << 20,), gen)], 2.0)
    yield "vectors_2x2^27", Call([sample((1 << 27,), gen), sample((1 << 27,), gen)], 2.0)
    yield "matrices_8192x4096_row", Call([sample((8192, 2048), gen), sample((8192, 1024), gen),
                                          sample((8192, 1024), gen)], nonzero((4096,), gen))
    yield "matrices_8192x4096_floor", Call([sample((8192, 2048), gen) * 8, sample((8192, 2048), gen) * 8],
                                           nonzero((8192, 1), gen), rounding_mode="floor")


TASK = Task(
    id="Fusion/fused_hstack_div",
    entry="fused_hstack_div",
    signature="fused_hstack_div(tensors: list[Tensor], divisor: Tensor | float, *, rounding_mode: str | None = None) "
              "-> Tensor",
    description="Stacks `tensors` horizontally like torch.hstack (1-D tensors are concatenated along dim 0; "
                "tensors with 2 or more dims along dim 1; all other dims must match), then divides the result "
                "elementwise by `divisor` (a tensor broadcastable to the stacked shape, or a Python number). "
                "rounding_mode=None is true division (integer inputs are promoted to float32, so the output is "
                "float32). rounding_mode='trunc' rounds the quotient toward zero: trunc(a / b). "
                "rounding_mode='floor' is torch's Python-style floor division; for floats it is computed as "
                "m = fmod(a, b); q = (a − m) / b; q −= 1 if m ≠ 0 and (b < 0) ≠ (m < 0); r = floor(q), plus 1 if "
                "q − r > 0.5; r is ±0 (the sign of a / b) when q = 0; and a / b when b = 0. For int64 inputs with "
                "an int divisor, 'trunc' and 'floor' give int64 (integer division; the divisor is never 0). "
                "Float division by zero follows IEEE (±inf, NaN for 0/0). The upstream `out=` argument is dropped.",
    math=r"Y = \mathrm{hstack}(X_1, \dots, X_n) \oslash D",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="tensors float32 (or int64 in some stage-1 cases); divisor float32 tensor or "
                             "Python number; output float32 (int64 for integer floor/trunc division)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="'floor' must follow the fmod-based rule above: floor(a / b) differs from it for about "
                            "one element in 10⁶ and is then off by 1."),
    flops=elementwise_flops(1),
    choices={"rounding_mode": (None, "trunc", "floor")},
    deviations=(
        Deviation(Kind.PERF, "16 sizes, two 1-D tensors of 2^12 … 2^27 elements divided by the scalar 2.0",
                  "two 1-D tensors of 2^20 and of 2^27 elements by 2.0, and 8192-row matrices stacked from 2–3 "
                  "blocks with a row divisor (true division) and a column divisor (floor division)",
                  "two of upstream's sizes plus 2-D stacking with tensor divisors and a rounding mode, which the "
                  "1-D scalar cases never time"),
    ),
)
