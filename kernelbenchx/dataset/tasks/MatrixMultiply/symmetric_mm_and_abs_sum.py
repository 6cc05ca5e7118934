"""MatrixMultiply/symmetric_mm_and_abs_sum: the sum of |α·A@Aᵀ + β·C| (C is not modified)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(A: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    C = alpha * torch.mm(A, A.T) + beta * C  # a new tensor: the caller's C is left as it is
    return torch.sum(torch.abs(C))


def error_bound(call: Call) -> torch.Tensor:
    """fp32 error of the sum: the n² entries' m-term accumulations (independent rounding errors, which add as
    a random walk through the signed sum; ×2 because (i, j) and (j, i) may share one computed product), their
    scaling and addition roundings, and the n²-term sum of |C'| itself."""
    A, C, alpha, beta = call.args
    a = A.double()
    prod = alpha * (a @ a.T)
    new = prod + beta * C.double()
    n, m = A.shape
    col = (a * a).sum(0)  # Σ_{i,j} Σ_l a_il² a_jl² = Σ_l (Σ_i a_il²)²
    entries = 2.0 * abs(alpha) * _precision.acc(col.pow(2).sum(), m)
    roundings = _precision.BOUND_C * _precision.EPS * (prod.norm() + (beta * C.double()).norm() + new.norm())
    return _precision.acc(new.pow(2).sum(), n * n) + entries + roundings


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((n, n), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, 2), 1.0, 0.5)
    yield "odd", case(33, 17, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 40, gen, 0.2, 0.0)
    yield "alpha_negative", case(9, 5, gen, -1.0, 0.3)
    yield "alpha_zero", case(12, 7, gen, 0.0, 2.0)
    yield "single_column", case(25, 1, gen, 1.0, -1.0)
    yield "one_row", case(1, 64, gen, 0.5, 0.5)
    yield "cancelling", Call(sample((40, 30), gen), -sample((40, 40), gen).abs(), 1.0 / 30, 0.5)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0, 0.5, mode)
    yield "odd", case(129, 255, gen, 0.1, -0.7, mode)
    yield "wide", case(67, 653, gen, 1.0, 1.0, mode)


def perf_cases(gen):
    for n in (256, 1024, 2048):  # rows of upstream's sweep (16 … 2048)
        yield f"{n}", case(n, n, gen, 1.0, 0.5)


def flops(call, out):
    n, m = call.args[0].shape
    return 2.0 * n * n * m + 4.0 * n * n


TASK = Task(
    id="MatrixMultiply/symmetric_mm_and_abs_sum",
    entry="symmetric_mm_and_abs_sum",
    signature="symmetric_mm_and_abs_sum(A: Tensor, C: Tensor, alpha: float, beta: float) -> Tensor",
    description="Forms C' = alpha·(A @ Aᵀ) + beta·C, where A is (n, m) and C is (n, n), and returns the sum of "
                "the absolute values of C', Σ_ij |C'_ij|, as a 0-d float32 tensor. C itself is an input and is "
                "left unchanged (C' is not written back).",
    math=r"C' = \alpha A A^\top + \beta C;\quad \mathrm{out} = \sum_{ij} |C'_{ij}|",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, C float32; output a 0-d float32 tensor",
                      # rtol 4ε: where many entries are equal (expanded inputs) their roundings add up coherently.
                      tolerance=Tolerance(rtol=5e-7, atol=1.0, scale="bound"),
                      bound="the fp32 accumulation bound 2·ε·√n·‖terms‖₂ (ε = 2⁻²³) of each sum: the n²-term sum "
                            "of |C'|, plus 2·|alpha|·2·ε·√m·(Σ_ij Σ_l A_il²A_jl²)^½ for the entries' m-term "
                            "sums, plus 2·ε·(‖alpha·AAᵀ‖_F + ‖beta·C‖_F + ‖C'‖_F) for the scalings and additions",
                      precision=_precision.STRICT_PRECISION,
                      notes="fp32 products, no TF32: a sum of n² absolute values averages the products' random "
                            "rounding errors away but not the bias of truncated TF32 operands (≈ 7e-4 of the sum), "
                            "so precision is judged against fp32 accumulation. AAᵀ is symmetric: computing one "
                            "triangle and using C_ij and C_ji with it halves the work. Atomics for the sum are fine."),
    error_bound=error_bound,
    flops=flops,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 on the sum",
                  "an fp32 accumulation bound on the sum; no TF32",
                  "the bound follows the sum's rounding in fp32 instead of a fixed relative 1e-5, and it "
                  "rejects TF32 products, which a relative 1e-5 on a sum of absolute values lets through"),
        Deviation(Kind.PERF, "8 sizes n = m = 16 … 2048, timed in float32", "n = m = 256, 1024, 2048",
                  "below n = 256 the call measures launch overhead"),
    ),
)
