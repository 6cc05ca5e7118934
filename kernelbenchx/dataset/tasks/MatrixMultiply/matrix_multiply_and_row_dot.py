"""MatrixMultiply/matrix_multiply_and_row_dot: the dot of the first two rows of α·A@B + β·C (C is not modified)."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(A: torch.Tensor, B: torch.Tensor, alpha: float, beta: float, C: torch.Tensor) -> torch.Tensor:
    C = alpha * torch.mm(A, B) + beta * C  # a new tensor: the caller's C is left as it is
    return torch.dot(C[0], C[1])


def error_bound(call: Call) -> torch.Tensor:
    """fp32 error of the dot: each of the 2·p updated entries carries its m-term accumulation and two roundings,
    propagated into the dot (linearly, conservatively), plus the p-term accumulation of the dot itself."""
    A, B, alpha, beta, C = call.args
    a, b, c = A[:2].double(), B.double(), C[:2].double()
    prod = alpha * (a @ b)
    new = prod + beta * c
    entry = (abs(alpha) * _precision.acc((a * a) @ (b * b), A.shape[1]) +
             _precision.rounding(prod, beta * c, new))
    return (_precision.acc((new[0] * new[1]).pow(2).sum(), B.shape[1])
            + (entry[0] * new[1].abs() + new[0].abs() * entry[1]).sum())


def case(n, m, p, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((m, p), gen, mode), alpha, beta, sample((n, p), gen, mode))


def fixed_cases(gen):
    A, B = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]])
    yield "example", Call(A, B, 1.5, 0.5, torch.zeros(2, 2))
    yield "odd", case(33, 17, 65, gen, 0.5, 1.0)
    yield "two_rows", case(2, 40, 9, gen, 1.0, -2.0)
    yield "beta_zero", case(16, 16, 16, gen, 0.2, 0.0)
    yield "nan_in_unused_rows", Call(sample((6, 24), gen), sample((24, 5), gen), 1.0, 0.0,
                                   torch.cat([sample((2, 5), gen), torch.full((4, 5), math.nan)]))
    yield "alpha_zero", case(5, 7, 31, gen, 0.0, 1.5)
    yield "one_column", case(8, 20, 1, gen, 1.0, 1.0)
    yield "long_rows", case(4, 300, 700, gen, -0.7, 0.4)


def random_cases(gen, mode):
    yield "square", case(256, 256, 256, gen, 1.0, 1.0, mode)
    yield "odd", case(129, 255, 67, gen, 0.7, -0.3, mode)
    yield "wide", case(67, 97, 1253, gen, 1.5, 0.5, mode)


def perf_cases(gen):
    for n in (256, 2048, 4096):  # rows of upstream's square sweep
        yield f"{n}", case(n, n, n, gen, 1.0, 1.0)


def flops(call, out):
    """Only rows 0 and 1 of α·A@B + β·C reach the output: 2·p dots of length m, the update and the final dot."""
    m, p = call.args[0].shape[1], call.args[1].shape[1]
    return 4.0 * m * p + 6.0 * p


def compulsory_bytes(call, out):
    """B in full, rows 0 and 1 of A and C, and the scalar: the other rows of A and C do not affect the result."""
    A, B, C = call.args[0], call.args[1], call.args[4]
    return float(B.numel() * B.element_size() + 2 * (A.shape[1] + C.shape[1]) * 4 + 4)


TASK = Task(
    id="MatrixMultiply/matrix_multiply_and_row_dot",
    entry="matrix_multiply_and_row_dot",
    signature="matrix_multiply_and_row_dot(A: Tensor, B: Tensor, alpha: float, beta: float, C: Tensor) -> Tensor",
    description="Forms C' = alpha·(A @ B) + beta·C, with A (n, m), B (m, p) and C (n, p), n ≥ 2, and returns the "
                "dot product of C's first two rows, Σ_j C'[0, j]·C'[1, j], as a 0-d float32 tensor. C itself is "
                "an input and is left unchanged (C' is not written back). As with torch tensors, beta·C is "
                "computed even when beta == 0 (0·NaN = NaN).",
    math=r"C' = \alpha AB + \beta C;\quad \mathrm{out} = \textstyle\sum_j C'_{0j} C'_{1j}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, B, C float32; output a 0-d float32 tensor",
                      tolerance=Tolerance(rtol=0.0, atol=1.0, scale="bound"),
                      bound="the fp32 accumulation bound 2·ε·√n·‖terms‖₂ (ε = 2⁻²³) of every sum over n terms: each "
                            "of the 2·p entries of C' rows 0 and 1 (m products, plus 2·ε·|x| per scaling and "
                            "addition), propagated into the dot as Σ_j (B_0j·|C'_1j| + |C'_0j|·B_1j), plus the "
                            "dot's own p-term sum",
                      precision=_precision.STRICT_PRECISION,
                      notes="fp32 throughout, no TF32: the result depends only on rows 0 and 1 of A and C (2·m·p "
                            "multiply-adds that read all of B once), so the work is memory-bound."),
    error_bound=error_bound,
    flops=flops,
    bytes=compulsory_bytes,
    deviations=(
        Deviation(Kind.TOLERANCE, "the dot (a python float via .item()) compared at rtol = atol = 1e-5",
                  "an fp32 accumulation bound for the dot; no TF32",
                  "a dot of two rows that nearly cancel can be far below their norms while the rounding error of "
                  "its terms is not; the bound grows with the terms as fp32 rounding does"),
        Deviation(Kind.PERF, "31 square sizes 256 … 4096, timed in float16", "n = 256, 2048, 4096 in float32",
                  "the timed inputs have the dtype the task is judged in"),
    ),
)
