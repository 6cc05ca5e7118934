"""Fusion/fused_sum_std: standard deviation of all the partial sums of a tensor along given dimensions."""

import math

import torch

from kernelbenchx.dataset import bounds
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, dim=None, keepdim: bool = False, dtype=None, correction: int = 1) -> torch.Tensor:
    sums = torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)
    m = sums.numel()
    if m <= correction:  # too few sums for the correction: 0, not torch.std's NaN/inf
        return torch.zeros((), dtype=sums.dtype, device=sums.device)
    return (sums - sums.mean()).pow(2).sum().div(m - correction).sqrt()


def bind(input, dim=None, keepdim=False, dtype=None, correction=1):
    return input, dim, keepdim, dtype, correction


def error_bound(call: Call) -> torch.Tensor:
    """B = ‖b‖₂/√(M − correction) + 2·ε·(√M + 2)·σ: b_i (bounds.sum_bound) bounds the error of the i-th sum (a
    perturbation δ of the sums moves σ by at most ‖δ‖₂/√(M − correction)); the second term is the rounding of
    the M-term sum of squared deviations, its division and square root."""
    x, dim, keepdim, dtype, correction = bind(*call.args, **call.kwargs)
    acc = dtype or torch.float32
    b = bounds.sum_bound(x.to(acc), dim, keepdim, acc=acc)
    sums = torch.sum(x.double(), dim=dim, keepdim=keepdim)
    m = sums.numel()
    if m <= correction:
        return torch.zeros((), dtype=torch.float64)
    sigma = (sums - sums.mean()).pow(2).sum().div(m - correction).sqrt()
    return b.pow(2).sum().sqrt() / math.sqrt(m - correction) + bounds.C * bounds.EPS[acc] * (math.sqrt(m) + 2) * sigma


def fixed_cases(gen):
    yield "vector_all", Call(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    yield "all_correction0", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), correction=0)
    yield "dim0", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 0)
    yield "dim1_keepdim", Call(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 1, True)
    yield "dim_tuple", Call(sample((5, 6, 7), gen), (0, 2))
    yield "negative_dim_correction2", Call(sample((9, 33), gen), -1, correction=2)
    yield "float64", Call(sample((17, 40), gen), 0, dtype=torch.float64)
    yield "dims_keepdim_3d", Call(sample((4, 3, 8), gen), (1,), True, None, 0)
    yield "equal_sums", Call(torch.ones(6, 10), 1)
    yield "two_sums_correction2", Call(sample((2, 50), gen), 1, correction=2)
    yield "single_sum", Call(sample((1, 7), gen), 1)
    # float64 sums of rows holding one large term (3e7, exact in float32) plus N(0, 1) values: a float32
    # accumulator rounds each sum to a multiple of 2, far outside the float64 bound. Row- and column-major views.
    big = sample((24, 40), gen)
    big[:, 3] = 3e7
    yield "float64_large_term_rows", Call(big, 1, dtype=torch.float64)
    yield "float64_large_term_cols", Call(big.t().contiguous(), 0, False, torch.float64, 0)


def random_cases(gen, mode):
    yield "rows", Call(sample((128, 256), gen, mode), 1)
    yield "cols", Call(sample((128, 256), gen, mode), 0)
    yield "batch_tuple_keepdim", Call(sample((16, 33, 65), gen, mode), (0, 2), True, None, 0)
    # Sums with a large common mean: a one-pass Σs² − M·mean² formula loses the digits of the spread.
    yield "offset_rows_keepdim", Call(sample((300, 513), gen, mode) + 30.0, -1, True)
    yield "offset_cols_float64", Call(sample((1000, 77), gen, mode) + 30.0, 0, False, torch.float64, 2)
    yield "all_dims", Call(sample((33, 65), gen, mode), None, bool(torch.randint(2, (), generator=gen)))


def perf_cases(gen):
    yield "rows_1024x1024", Call(sample((1024, 1024), gen), 1)
    yield "rows_4096x8192", Call(sample((4096, 8192), gen), 1)
    yield "cols_16384x8192", Call(sample((16384, 8192), gen), 0)


TASK = Task(
    id="Fusion/fused_sum_std",
    entry="fused_sum_std",
    signature="fused_sum_std(input: Tensor, dim: int | tuple[int, ...] | None = None, keepdim: bool = False, "
              "dtype: torch.dtype | None = None, correction: int = 1) -> Tensor",
    description="First sums the input over `dim` (an int, a tuple of ints, or None for all dimensions; negative "
                "dims count from the end) as torch.sum(input, dim, keepdim, dtype) (when dtype is given the "
                "input is cast to it first). Then returns the standard deviation of ALL the resulting M sums: "
                "sqrt(Σ (s − mean)² / (M − correction)) when M > correction, and 0 when M ≤ correction (e.g. "
                "dim=None gives a single sum, hence 0). The result is always a 0-d tensor (keepdim only shapes "
                "the intermediate sums, so it does not change the result). The output dtype is float32, or "
                "`dtype` when given. The upstream `out=` argument is dropped.",
    math=r"s = \sum_{\mathrm{dim}} x,\qquad "
         r"\sigma = \sqrt{\frac{1}{M - \delta}\sum_{i=1}^{M}(s_i - \bar{s})^2}\ (M > \delta),\quad 0\ \text{otherwise}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output a 0-d float32 tensor (or `dtype` when given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = ‖b‖₂/√(M − correction) + 2·ε·(√M + 2)·σ, where b_i = 2·ε·√K·(‖x_i‖₂ + "
                            "|Σx_i|) bounds the accumulation error of the i-th sum (its K terms x_i), σ is the exact "
                            "result and ε = 2⁻²³ (2⁻⁵² when dtype=torch.float64); B = 0 when M ≤ correction. Any "
                            "summation order in the accumulation precision stays inside it (no single accumulator "
                            "adding more than ~256 terms in a row); a one-pass Σs² − M·mean² formula does not when "
                            "the sums share a large mean",
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    flops=input_flops(1),
    deviations=(
        Deviation(Kind.COVERAGE, "random cases 128×256 with dim None, 0 and 1, correction 1",
                  "adds tuples of dims, keepdim, float64 accumulation, corrections 0 and 2, single sums and sums "
                  "sharing a large mean",
                  "the dims, dtype and correction arguments are part of the function"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "the accumulation bound B above plus rtol 1e-5",
                  "σ of sums of 513 terms has absolute errors that grow with the terms; a fixed atol rejects "
                  "honest split reductions by chance or admits a lower-precision accumulation"),
        Deviation(Kind.PERF, "13 sizes, 1-D 2^12 … 2^24 elements with dim=None, whose result is always 0 (one "
                  "sum, M ≤ correction)",
                  "row sums of 1024×1024 and 4096×8192, column sums of 16384×8192",
                  "with dim=None the std part is dead work and a kernel need not read the input to return 0; "
                  "row and column sums time both access patterns of the real reduction"),
    ),
)
