"""Fusion/fused_add_mean: mean of input + alpha·other over some dimensions (or all)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input: torch.Tensor, other, dim=None, alpha=1, keepdim: bool = False, dtype=None) -> torch.Tensor:
    return torch.mean(torch.add(input, other, alpha=alpha), dim=dim, keepdim=keepdim, dtype=dtype)


def bind(input, other, dim=None, alpha=1, keepdim=False, dtype=None):
    return input, other, dim, alpha, keepdim, dtype


def error_bound(call: Call) -> torch.Tensor:
    """The mean's accumulation bound over the terms s = x + α·y, plus each term's own fp32 rounding
    (ε(|s| + |α·y|), which an fma or a different association changes) adding up like a random walk."""
    x, y, dim, alpha, keepdim, dtype = bind(*call.args, **call.kwargs)
    y = torch.as_tensor(y, dtype=torch.float64)
    ay = (float(alpha) * y.double()).broadcast_to(torch.broadcast_shapes(x.shape, y.shape))
    s = x.double() + ay
    ds = sb.E32 * (s.abs() + ay.abs())
    return sb.mean_bound(s, ds, dim, keepdim, dtype or torch.float32)


def cancelling_blocks(m, n, gen):
    """Rows of magnitudes 1000 … 2000 whose signs alternate in runs of 512 (the same values come back negated),
    plus N(0, 1): each mean is O(0.01) while partial sums reach ~10⁶, so accumulating in float32 lands well
    outside the float64 bound (dtype=float64 promises float64 accumulation)."""
    mag = uniform((m, n // 2), gen, 1000.0, 2000.0)
    pos = torch.arange(n) % 1024 < 512
    x = torch.empty(m, n)
    x[:, pos] = mag
    x[:, ~pos] = -mag.flip(1)
    return x, sample((m, n), gen)


def fixed_cases(gen):
    yield "all", Call(torch.arange(-50, 51, dtype=torch.float32), torch.ones(101), alpha=0.5)
    yield "rows_keepdim", Call(sample((7, 33), gen), sample((7, 33), gen), 1, keepdim=True)
    yield "cols_broadcast_row", Call(sample((65, 9), gen), sample((9,), gen), 0, alpha=-2)
    yield "scalar_other_negative_dim", Call(sample((3, 5, 17), gen), 3.25, -1)
    yield "tuple_dim", Call(sample((4, 6, 10), gen), sample((4, 1, 10), gen), (0, 2))
    yield "all_keepdim", Call(sample((5, 7), gen), sample((5, 7), gen), None, 2, True)
    yield "float64_accumulate", Call(sample((16, 1000), gen), sample((16, 1000), gen), 1, dtype=torch.float64)
    yield "overflow", Call(torch.tensor([3e38, 3e38, -1.0]), torch.tensor([3e38, 0.0, 1.0]))
    yield "cancellation_float64", Call(torch.tensor([[1e7, 3.0, -1e7, 0.5], [2.5e6, -2.5e6, 1e-3, 7.0]]),
                                       torch.tensor([1.0, -1.0, 0.25, 2.0]), 1, 0.5, dtype=torch.float64)
    yield "empty_rows", Call(torch.zeros(3, 0), torch.zeros(3, 0), 1)
    yield "size1_dim", Call(sample((5, 1, 4), gen), sample((5, 1, 4), gen), 1)
    # Few long rows (the reduced dim is the outer one): both operands are read with an inner stride of 3 over
    # 8200 columns, the size where a kernel splits each row into chunks (the last one partial).
    yield "cols_few_long_strided", Call(sample((8200, 3), gen), sample((8200, 3), gen), 0, alpha=0.75)
    yield "float64_cancelling_blocks", Call(*cancelling_blocks(8, 4096, gen), 1, dtype=torch.float64)


def random_cases(gen, mode):
    # keepdim and dtype take every combination across the four cases; which case gets which is drawn.
    combos = [(False, None), (True, None), (False, torch.float64), (True, torch.float64)]
    order = torch.randperm(4, generator=gen).tolist()
    (k0, d0), (k1, d1), (k2, d2), (k3, d3) = (combos[i] for i in order)
    yield "rows", Call(sample((257, 1025), gen, mode) + 0.5, sample((257, 1025), gen, mode), 1, alpha=0.5,
                       keepdim=k0, dtype=d0)
    yield "cols", Call(sample((1025, 129), gen, mode), sample((1025, 129), gen, mode), 0, keepdim=k1, dtype=d1)
    yield "flat", Call(sample((100_003,), gen, mode), sample((100_003,), gen, mode) + 1.0, keepdim=k2, dtype=d2)
    yield "tuple_dim_broadcast", Call(sample((8, 63, 65), gen, mode), sample((63, 1), gen, mode), (0, 2), -1.5,
                                      k3, d3)
    yield "scalar_other_all", Call(sample((3, 77, 41), gen, mode) * 100, 1e3, None, 2.0)


def perf_cases(gen):
    yield "all_n2^20", Call(sample((1 << 20,), gen), sample((1 << 20,), gen))
    yield "rows_16384x4096", Call(sample((16384, 4096), gen), sample((16384, 4096), gen), 1, 0.5)
    yield "all_n2^27", Call(sample((1 << 27,), gen), sample((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_add_mean",
    entry="fused_add_mean",
    signature="fused_add_mean(input: Tensor, other: Tensor | float, dim: int | tuple[int, ...] | None = None, "
              "alpha: float = 1, keepdim: bool = False, dtype: torch.dtype | None = None) -> Tensor",
    description="Computes s = input + alpha·other (other is a tensor broadcastable with input, or a Python "
                "number; the sum has the broadcast shape and dtype float32), then returns the mean of s over "
                "dimension(s) `dim` (an int, a tuple of ints, negative values allowed) or over all elements when "
                "dim is None (a 0-dim tensor). keepdim=True keeps each reduced dimension with size 1. When dtype "
                "is given, s (computed in float32) is cast to dtype before the mean and the result has that "
                "dtype. IEEE rules apply: a sum that overflows gives ±inf; a mean over zero elements is NaN. The "
                "upstream `out=` argument is dropped.",
    math=r"\mathrm{out} = \frac{1}{|D|}\sum_{i \in D} (x_i + \alpha\,y_i)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; other float32 tensor or Python number; output float32 "
                             "(or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      accumulation="fp32 (float64 when dtype is float64)",
                      bound="B = (2·ε_acc·√n·‖s‖₂ + 2·‖δs‖₂)/n over the n terms s = x + α·y of each output, "
                            "with δs = ε(|s| + |α·y|) the rounding of forming a term, ε = 2⁻²³ and ε_acc = ε for "
                            "float32 accumulation (2⁻⁵² when dtype is float64)",
                      notes="Summation order is free (atomics, split reductions, trees); with dtype=float64 the "
                            "terms are formed in float32 and accumulated in float64."),
    error_bound=error_bound,
    choices={"dtype": (None, torch.float64)},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an accumulation bound on each mean "
                  "(2·ε·√n·‖s‖₂/n plus the terms' own rounding) with rtol 1e-5",
                  "a fixed atol does not scale with the number or size of the terms; the bound does, as fp32 "
                  "rounding does, and stays far below a dropped block or a lower-precision accumulation"),
        Deviation(Kind.PERF, "16 sizes, full reduction of 1-D tensors of 2^12 … 2^27 elements",
                  "full reductions of 2^20 and 2^27 elements, and row means of 16384×4096",
                  "two of upstream's sizes plus a row reduction, the other memory pattern a mean kernel needs"),
    ),
    flops=lambda call, out: 3.0 * torch.broadcast_shapes(
        call.args[0].shape, getattr(call.args[1], "shape", ())).numel(),
)
