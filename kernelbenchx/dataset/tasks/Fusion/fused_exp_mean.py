"""Fusion/fused_exp_mean: mean of exp(input) over some dimensions (or all)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample, uniform
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, dtype=None) -> torch.Tensor:
    return torch.mean(torch.exp(input), dim=dim, keepdim=keepdim, dtype=dtype)


def bind(input, dim=None, keepdim=False, dtype=None):
    return input, dim, keepdim, dtype


def error_bound(call: Call) -> torch.Tensor:
    """The mean's accumulation bound over the terms e = exp(x), plus each term's own error ε(4 + |x|)·e (a
    float32 exp, including the rounding of its argument's scaling on fast paths)."""
    x, dim, keepdim, dtype = bind(*call.args, **call.kwargs)
    e = x.double().exp()
    de = torch.where(e > 0, sb.E32 * (sb.K_FN + x.double().abs()) * e, torch.zeros_like(e))
    bound = sb.mean_bound(torch.where(torch.isfinite(e), e, torch.zeros_like(e)), de.nan_to_num(0.0), dim,
                          keepdim, dtype or torch.float32)
    return bound


def fixed_cases(gen):
    yield "all", Call(torch.linspace(-5.0, 5.0, 101))
    yield "rows_keepdim", Call(sample((7, 33), gen), 1, True)
    yield "cols", Call(sample((65, 9), gen), 0)
    yield "tuple_negative_dims", Call(sample((4, 6, 10), gen), (0, -1))
    yield "edges", Call(torch.tensor([[0.0, 89.0, -1.0], [-200.0, -1e4, 0.0], [float("-inf"), 1.0, 2.0],
                                      [float("nan"), 0.0, 0.0], [float("inf"), 0.0, -3.0]]), 1)
    yield "float64_accumulate", Call(sample((16, 1000), gen), 1, dtype=torch.float64)
    yield "wide_range_keepdim_float64", Call(sample((3, 5, 400), gen) * 20, (1, 2), True, torch.float64)
    yield "empty_rows", Call(torch.zeros(4, 0), 1)
    yield "size1_dim", Call(sample((6, 1), gen), 1)
    # float64 means of exps near float32's max (~2.5e38 each): the float64 sum stays finite where a float32
    # accumulator (or float32 partials) would overflow to +inf.
    yield "float64_near_fp32_max", Call(uniform((4, 40), gen, 88.0, 88.6), 1, dtype=torch.float64)
    # Few long rows (the split path) read through a non-contiguous (M, N) view: dim=0 gives row stride 1 and
    # column stride 3; 8200 columns leave a partial last chunk and block.
    yield "split_cols_strided", Call(sample((8200, 3), gen), 0)


def random_cases(gen, mode):
    # keepdim and dtype take every combination across the four cases; which case gets which is drawn.
    combos = [(False, None), (True, None), (False, torch.float64), (True, torch.float64)]
    order = torch.randperm(4, generator=gen).tolist()
    (k0, d0), (k1, d1), (k2, d2), (k3, d3) = (combos[i] for i in order)
    yield "rows", Call(sample((257, 1025), gen, mode), 1, k0, d0)
    yield "cols", Call(sample((1025, 129), gen, mode), 0, k1, d1)
    yield "flat", Call(sample((100_003,), gen, mode), None, k2, d2)
    yield "tuple_dim", Call(sample((8, 63, 65), gen, mode), (0, 2), k3, d3)
    yield "large_exponents_rows", Call(sample((64, 3000), gen, mode).clamp(-10, 10) * 8, -1)


def perf_cases(gen):
    yield "all_n2^20", Call(sample((1 << 20,), gen))
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), 1)
    yield "all_n2^29", Call(sample((1 << 29,), gen))


TASK = Task(
    id="Fusion/fused_exp_mean",
    entry="fused_exp_mean",
    signature="fused_exp_mean(input: Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False, "
              "dtype: torch.dtype | None = None) -> Tensor",
    description="Returns the mean of exp(input) over dimension(s) `dim` (an int or a tuple of ints, negative "
                "values allowed), or over all elements when dim is None (a 0-dim tensor). keepdim=True keeps each "
                "reduced dimension with size 1. exp is computed in float32; when dtype is given, exp(input) is "
                "cast to dtype before the mean and the result has that dtype. IEEE rules apply: exp overflows to "
                "+inf for inputs above ~88.72 (so the mean is +inf), exp(-inf) = 0, NaN propagates. The upstream "
                "`out=` argument is dropped.",
    math=r"\mathrm{out} = \frac{1}{|D|}\sum_{i \in D} e^{x_i}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      accumulation="fp32 (float64 when dtype is float64)",
                      bound="B = (2·ε_acc·√n·‖e‖₂ + 2·‖δe‖₂)/n over the n terms e = exp(x) of each output, with "
                            "δe = ε(4 + |x|)·e the error of a float32 exp, ε = 2⁻²³ and ε_acc = ε for float32 "
                            "accumulation (2⁻⁵² when dtype is float64)",
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"dtype": (None, torch.float64)},
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference ignores `dtype` (always a float32 mean), although its "
                  "catalogue entry passes dtype to torch.mean", "dtype is honoured: exp(input) is cast to dtype "
                  "before the mean and the result has that dtype",
                  "kbx computes the documented operation. Upstream's tests never pass dtype, so only kbx's "
                  "float64 cases tell the two apart.", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an accumulation bound on each mean "
                  "(2·ε·√n·‖e‖₂/n plus the terms' exp error) with rtol 1e-5",
                  "a fixed atol does not scale with the number or size of the terms; the bound does, as fp32 "
                  "rounding does, and stays far below a dropped block or a lower-precision accumulation"),
        Deviation(Kind.PERF, "18 sizes, full reduction of 1-D tensors of 2^12 … 2^29 elements",
                  "full reductions of 2^20 and 2^29 elements, and row means of 16384×8192",
                  "two of upstream's sizes plus a row reduction, the other memory pattern a mean kernel needs"),
    ),
    flops=input_flops(2),
)
