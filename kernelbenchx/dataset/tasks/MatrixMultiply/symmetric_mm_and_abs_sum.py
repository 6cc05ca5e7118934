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
    """fp32 error of the sum: the n²-term sum of |C'| (same-sign terms: 2·ε·√N·(‖t‖₂ + |Σt|), as for Reduce/sum,
    which admits any order whose accumulators add at most ~256 terms one after the other), the entries' m-term
    accumulations (independent rounding errors, which add as a random walk through the sum; ×2 because (i, j)
    and (j, i) may share one computed product), and the scaling and addition roundings."""
    A, C, alpha, beta = call.args
    a = A.double()
    prod = alpha * (a @ a.T)
    new = prod + beta * C.double()
    n, m = A.shape
    col = (a * a).sum(0)  # Σ_{i,j} Σ_l a_il² a_jl² = Σ_l (Σ_i a_il²)²
    entries = 2.0 * abs(alpha) * _precision.acc(col.pow(2).sum(), m)
    roundings = _precision.BOUND_C * _precision.EPS * (prod.norm() + (beta * C.double()).norm() + new.norm())
    total = new.abs().sum()
    return _precision.acc((new.norm() + total).pow(2), n * n) + entries + roundings


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((n, n), gen, mode), alpha, beta)


def residual_case(n, m, gen, mode="standard"):
    """C ≈ −(alpha/beta)·A@Aᵀ up to a small residual: C' is that residual, so Σ|C'| depends on every product's
    precision (TF32 or bf16 operands change each entry by more than its size, fp32 by far less)."""
    A = sample((n, m), gen, mode)
    exact = (A.double() @ A.double().T).float()
    return Call(A, -2.0 * exact + 1e-3 * sample((n, n), gen), 1.0, 0.5)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, 2), 1.0, 0.5)
    yield "odd", case(33, 17, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 40, gen, 0.2, 0.0)
    yield "alpha_negative", case(9, 5, gen, -1.0, 0.3)
    yield "alpha_zero", case(12, 7, gen, 0.0, 2.0)
    yield "single_column", case(25, 1, gen, 1.0, -1.0)
    yield "one_row", case(1, 64, gen, 0.5, 0.5)
    yield "residual", residual_case(40, 30, gen)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0, 0.5, mode)
    yield "odd", case(129, 255, gen, 0.1, -0.7, mode)
    yield "wide", case(67, 653, gen, 1.0, 1.0, mode)
    yield "residual", residual_case(97, 131, gen, mode)


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
                      tolerance=Tolerance(rtol=0.0, atol=1.0, scale="bound"),
                      bound="with ε = 2⁻²³: 2·ε·n·(‖C'‖_F + Σ|C'|) for the n²-term sum of |C'| (its terms have one "
                            "sign; any order whose accumulators add at most ~256 terms one after the other stays "
                            "inside it), plus 2·|alpha|·2·ε·√m·(Σ_ij Σ_l A_il²A_jl²)^½ for the entries' m-term "
                            "sums, plus 2·ε·(‖alpha·AAᵀ‖_F + ‖beta·C‖_F + ‖C'‖_F) for the scalings and additions",
                      precision=_precision.STRICT_PRECISION,
                      notes="fp32 products, no TF32: where C nearly cancels alpha·AAᵀ (the residual cases), each "
                            "|C'_ij| is smaller than a TF32 product's rounding error. AAᵀ is symmetric: computing one "
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
