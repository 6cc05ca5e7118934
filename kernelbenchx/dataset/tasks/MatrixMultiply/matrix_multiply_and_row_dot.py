"""MatrixMultiply/matrix_multiply_and_row_dot: C ← α·A@B + β·C in place, then the dot of C's first two rows."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.task import Call, Task, sample


def reference(A: torch.Tensor, B: torch.Tensor, alpha: float, beta: float, C: torch.Tensor) -> torch.Tensor:
    C.copy_(alpha * torch.mm(A, B) + beta * C)
    return torch.dot(C[0], C[1])


def check(call, output, expected, contract):
    """C elementwise (RMS-scaled); the dot against its natural scale ‖C₀‖·‖C₁‖/√p, since a dot of two nearly
    orthogonal rows can be tiny and TF32 errors in C do not shrink with it."""
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        return "output: expected the dot product (and C updated in place)"
    reason = compare(output[1], expected[1], contract.tolerance, "C")
    if reason:
        return reason
    rows = expected[1].double()
    scale = float(rows[0].norm() * rows[1].norm()) / max(rows.shape[1], 1) ** 0.5
    return compare(output[0], expected[0], Tolerance(rtol=1e-2, atol=1e-2 * scale), "output")


def case(n, m, p, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((m, p), gen, mode), alpha, beta, sample((n, p), gen, mode))


def fixed_cases(gen):
    A, B = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0], [7.0, 8.0]])
    yield "example", Call(A, B, 1.5, 0.5, torch.zeros(2, 2))
    yield "odd", case(33, 17, 65, gen, 0.5, 1.0)
    yield "two_rows", case(2, 40, 9, gen, 1.0, -2.0)
    yield "beta_zero", case(16, 16, 16, gen, 0.2, 0.0)
    yield "alpha_zero", case(5, 7, 31, gen, 0.0, 1.5)
    yield "one_column", case(8, 20, 1, gen, 1.0, 1.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, 256, gen, 1.0, 1.0, mode)
    yield "odd", case(129, 255, 67, gen, 0.7, -0.3, mode)
    yield "wide", case(67, 97, 253, gen, 1.5, 0.5, mode)


def perf_cases(gen):
    yield "256", case(256, 256, 256, gen, 1.0, 1.0)
    yield "2048", case(2048, 2048, 2048, gen, 1.0, 1.0)
    yield "4096", case(4096, 4096, 4096, gen, 1.0, 1.0)


TASK = Task(
    id="MatrixMultiply/matrix_multiply_and_row_dot",
    entry="matrix_multiply_and_row_dot",
    signature="matrix_multiply_and_row_dot(A: Tensor, B: Tensor, alpha: float, beta: float, C: Tensor) -> Tensor",
    description="Updates C in place to alpha·(A @ B) + beta·C, with A (n, m), B (m, p) and C (n, p), n ≥ 2, and "
                "returns the dot product of the updated C's first two rows, Σ_j C[0, j]·C[1, j], as a 0-d float32 "
                "tensor. All rows of C are updated, not just the first two.",
    math=r"C \leftarrow \alpha AB + \beta C;\quad \mathrm{out} = \textstyle\sum_j C_{0j} C_{1j}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, B, C float32; output a 0-d float32 tensor; C updated in place",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True, mutates=(4,),
                      notes="TF32 products carry ~1e-3 relative error: C is compared with atol scaled by its RMS, "
                            "and the dot with |out − ref| ≤ 1e-2·|ref| + 1e-2·‖C₀‖‖C₁‖/√p."),
    check=check,
    flops=lambda call, out: 2.0 * call.args[4].numel() * call.args[0].shape[1] + 3.0 * call.args[4].numel(),
    unit="tf32",
)
