"""MatrixMultiply/tensordot_rsqrt: elementwise 1/√ of a tensordot contraction."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(a: torch.Tensor, b: torch.Tensor, dims) -> torch.Tensor:
    return torch.rsqrt(torch.tensordot(a, b, dims=dims))


def error_bound(call: Call) -> torch.Tensor:
    """B of each output: the contraction's fp32 accumulation bound carried through rsqrt,
    |d rsqrt(s)| = |ds| / (2·s^{3/2}). The terms of a contraction of positive factors all have one sign, so its
    partial sums grow like k·mean instead of √k·RMS and their roundings add up: the bound uses Σ|terms| in place
    of bounds.py's ‖terms‖₂ (the reference's own fp32 error reaches 2.4× the latter). Where s ≤ 0 the output is
    inf or NaN and compared exactly."""
    a, b, dims = call.args
    s = torch.tensordot(a.double(), b.double(), dims=dims)
    l1 = torch.tensordot(a.double().abs(), b.double().abs(), dims=dims)
    k = round(math.sqrt(a.numel() * b.numel() / s.numel())) if s.numel() else 1
    safe = torch.where(s > 0, s, torch.ones_like(s))
    return torch.where(s > 0, _precision.acc(l1.pow(2), k) / (2 * safe.pow(1.5)), torch.zeros_like(s))


def positive(shape, gen, mode="standard"):
    """Positive factors, so that every contraction is positive and its rsqrt finite."""
    return sample(shape, gen, mode).abs() + 0.1


def fixed_cases(gen):
    a = torch.arange(1, 13, dtype=torch.float32).reshape(3, 4)
    yield "example", Call(a, torch.arange(1, 25, dtype=torch.float32).reshape(4, 6), ([1], [0]))
    yield "int_dims", Call(positive((5, 6, 7), gen), positive((6, 7, 3), gen), 2)
    yield "outer_product", Call(positive((4,), gen), positive((5,), gen), 0)
    yield "list_dims", Call(positive((3, 8, 5), gen), positive((5, 2, 8), gen), [[1, 2], [2, 0]])
    yield "full_contraction", Call(positive((6, 7), gen), positive((6, 7), gen), 2)
    zero_row = torch.cat([torch.zeros(1, 9), positive((3, 9), gen)])
    yield "zero_and_negative", Call(torch.cat([zero_row, -torch.ones(1, 9)]), positive((9, 5), gen), 1)


def random_cases(gen, mode):
    yield "matrix", Call(positive((256, 255), gen, mode), positive((255, 129), gen, mode), 1)
    yield "two_dims", Call(positive((67, 13, 11), gen, mode), positive((13, 11, 97), gen, mode), 2)
    yield "permuted_dims", Call(positive((31, 64, 9), gen, mode), positive((9, 65, 64), gen, mode), ([1, 2], [2, 0]))


def perf_cases(gen):
    for n in (256, 1024, 2048):  # rows of upstream's sweep (32 … 2048)
        yield f"{n}^2", Call(positive((n, n), gen), positive((n, n), gen), 1)


def flops(call, out):
    a, b = call.args[0], call.args[1]
    contracted = (a.numel() * b.numel() / out.numel()) ** 0.5 if out.numel() else 0.0
    return 2.0 * out.numel() * contracted + 2.0 * out.numel()


TASK = Task(
    id="MatrixMultiply/tensordot_rsqrt",
    entry="tensordot_rsqrt",
    signature="tensordot_rsqrt(a: Tensor, b: Tensor, dims: int | tuple[list[int], list[int]] | list[list[int]]) -> Tensor",
    description="Returns torch.rsqrt(torch.tensordot(a, b, dims)). As in torch.tensordot: an integer dims = d "
                "contracts the last d dimensions of `a` with the first d dimensions of `b` (in order); a pair "
                "(dims_a, dims_b) contracts a's dimension dims_a[i] with b's dimension dims_b[i]. The result has "
                "a's free dimensions (in order) followed by b's free dimensions; then 1/√x elementwise, giving "
                "+inf where the contraction is 0 and NaN where it is negative. Output float32.",
    math=r"\mathrm{out} = \Big(\sum_{k} a_{\ldots,k}\, b_{k,\ldots}\Big)^{-1/2}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="a, b float32; output float32",
                      tolerance=Tolerance(rtol=1e-6, atol=1.0, scale="bound"),
                      bound="the contraction's fp32 accumulation bound 2·ε·√K·Σ_k |a_k·b_k| (ε = 2⁻²³, K the number "
                            "of contracted terms; same-sign terms, so their roundings add up) carried through rsqrt: "
                            "divided by 2·s^{3/2}, s the contraction; rtol 1e-6 covers the rounding of rsqrt itself",
                      precision=_precision.STRICT_PRECISION,
                      notes="fp32 products, no TF32: the factors are positive, so a contraction has no cancellation "
                            "and its relative rounding error shrinks with K; truncated TF32 operands would instead "
                            "shift every sum by about 7e-4 of itself, more than bf16 operands do, so no tolerance "
                            "admitting TF32 could reject lower precisions. Exact zeros and negative sums must still "
                            "give inf and NaN."),
    error_bound=error_bound,
    flops=flops,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an fp32 accumulation bound per output, carried through rsqrt, plus rtol 1e-6; no TF32",
                  "an absolute 1e-5 on outputs of about 0.05 is loose enough for TF32 products and tighter than "
                  "needed for small contractions; the bound follows fp32 rounding of each contraction"),
        Deviation(Kind.PERF, "7 sizes 32² … 2048² (dims = 1)", "256², 1024², 2048² (dims = 1)",
                  "below 256² the call measures launch overhead"),
    ),
)
