"""Normalization/symmetric_matrix_vector_norm: ‖α·A x + β·x‖_p for a symmetric matrix A."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform
from kernelbenchx.dataset import bounds as _bounds

EPS = _bounds.EPS32


def reference(A: torch.Tensor, x: torch.Tensor, alpha: float, beta: float, p: float = 2.0) -> torch.Tensor:
    y = alpha * torch.mv(A, x) + beta * x
    return torch.norm(y, p)


def bind(A, x, alpha, beta, p=2.0):
    return A, x, alpha, beta, p


def error_bound(call: Call) -> torch.Tensor:
    """Each y_i = α·Σ_j A_ij x_j + β·x_i carries B_i = |α|·(B_sum(A_i∘x) + ε·Σ_j|A_ij x_j|) + 2ε·(|α(Ax)_i| +
    |βx_i|); by Minkowski the norm moves by at most ‖B‖_p, plus its own relative bound: B = ‖B‖_p + ‖y‖_p·rel."""
    A, x, alpha, beta, p = bind(*call.args, **call.kwargs)
    terms = A.double() * x.double()
    ax = terms.sum(-1)
    b_y = (abs(alpha) * (_bounds.sum_bound(terms, -1) + EPS * terms.abs().sum(-1))
           + 2 * EPS * ((alpha * ax).abs() + (beta * x.double()).abs()))
    y = alpha * ax + beta * x.double()
    norm, rel = _bounds.norm_rel_bound(y, p, -1)
    return torch.linalg.vector_norm(b_y, p) + norm * rel


def symmetric(n, gen, mode="standard"):
    a = sample((n, n), gen, mode)
    return (a + a.T) / 2


def case(n, gen, alpha, beta, p=2.0, mode="standard"):
    return Call(symmetric(n, gen, mode), sample((n,), gen, mode), alpha, beta, p)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[2.0, -1.0], [-1.0, 2.0]]), torch.tensor([1.0, 1.0]), 1.5, 0.5)
    yield "l1", case(33, gen, 1.0, 1.0, 1.0)
    yield "p3", case(17, gen, 0.5, -2.0, 3.0)
    yield "inf", case(12, gen, -1.0, 1.0, float("inf"))
    yield "beta_zero", case(9, gen, 1.0, 0.0)
    yield "cancel_to_zero", Call(torch.eye(4), sample((4,), gen), 1.0, -1.0)
    # the same exact zero with a general p (3): (Σ|y|^p)^(1/p) of a zero vector is 0, not (anything)^0 = 1
    yield "cancel_to_zero_p3", Call(torch.eye(4), sample((4,), gen), 1.0, -1.0, 3.0)
    yield "one_element", case(1, gen, 2.0, 0.5)
    yield "near_cancel_l1", Call(torch.eye(6) * 2.0, sample((6,), gen), 0.5, -0.999, 1.0)


def random_cases(gen, mode):
    alpha, beta = float(uniform((), gen, -2.0, 2.0)), float(uniform((), gen, -2.0, 2.0))
    yield "l2", case(511, gen, alpha, beta, mode=mode)
    yield "l1", case(255, gen, 2.0, -1.0, 1.0, mode)
    yield "p3", case(547, gen, 1.0, 0.5, 3.0, mode)
    yield "inf_wide", case(1031, gen, beta, alpha, float("inf"), mode)


def perf_cases(gen):
    # upstream: n = 4 … 16384, alpha = beta = 1, p = 2
    for n in (1024, 4096, 16384):
        yield f"{n}", case(n, gen, 1.0, 1.0)


TASK = Task(
    id="Normalization/symmetric_matrix_vector_norm",
    entry="symmetric_matrix_vector_norm",
    signature="symmetric_matrix_vector_norm(A: Tensor, x: Tensor, alpha: float, beta: float, p: float = 2.0) -> Tensor",
    description="y = alpha·(A @ x) + beta·x for a symmetric matrix A (n, n) and a vector x (n,) (beta scales x, "
                "not A @ x), then returns "
                "torch.norm(y, p) = (Σ|y_i|^p)^(1/p) (p = inf gives max |y_i|) as a 0-d float32 tensor. "
                "A is exactly symmetric in every case (a kernel may rely on it).",
    math=r"y = \alpha A x + \beta x;\quad \mathrm{out} = \lVert y \rVert_p",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A float32 (n, n), x float32 (n,); output a 0-d float32 tensor",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = ‖B_y‖_p + ‖y‖_p·rel, where B_y,i = |α|·(B_sum(A_i∘x) + ε·Σ_j|A_ij·x_j|) + "
                            "2ε·(|α·(Ax)_i| + |β·x_i|), " + _bounds.NORM_TEXT + ", and " + _bounds.SUM_TEXT,
                      # an expanded A repeats one row and is no longer symmetric, which the task promises
                      layouts=("transposed", "sliced", "strided", "offset"),
                      notes="fp32 throughout (no TF32: matrix-vector products are memory-bound). Summation order "
                            "is free (atomics are allowed)."),
    error_bound=error_bound,
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference computes y = α·Ax, then y = y + β·y, i.e. (1 + β)·α·Ax",
                  "y = α·Ax + β·x, the catalogue's code (y = alpha * torch.mv(A, x) + beta * x)",
                  "The catalogue's code scales x by beta; upstream's reference makes beta a second factor on "
                  "α·Ax (its description's 'y = α·mv(A, x) + β·y' has no y to start from)", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "a bound from the matrix-vector products' and the norm's accumulation (see the contract) plus "
                  "rtol 1e-5",
                  "the bound grows with n as fp32 rounding does and stays tight where y cancels (α·Ax ≈ −β·x); "
                  "it admits every summation order and rejects TF32/bf16 products and fp16/bf16 accumulation "
                  "(tests/test_tolerances.py, tests/test_precision.py)"),
        Deviation(Kind.COVERAGE, "n = 128, 256 with (α, β, p) = (1, 0.5, 2), (1, 1, 1)",
                  "adds p = 3 and inf, random α and β, exact and near cancellation, n = 1", "the same semantics"),
        Deviation(Kind.PERF, "13 sizes, n = 4 … 16384", "n = 1024, 4096, 16384",
                  "a subset spanning upstream's range"),
    ),
    flops=lambda call, out: 2.0 * call.args[0].numel() + 4.0 * call.args[1].numel(),
)
