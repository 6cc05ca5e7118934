"""MatrixMultiply/symmetric_mm_and_abs_sum: C ← α·A@Aᵀ + β·C in place, then the sum of |C|."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(A: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    C.copy_(alpha * torch.mm(A, A.T) + beta * C)
    return torch.sum(torch.abs(C))


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((n, n), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.zeros(2, 2), 1.0, 0.5)
    yield "odd", case(33, 17, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 40, gen, 0.2, 0.0)
    yield "alpha_negative", case(9, 5, gen, -1.0, 0.3)
    yield "single_column", case(25, 1, gen, 1.0, -1.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0, 0.5, mode)
    yield "odd", case(129, 255, gen, 0.1, -0.7, mode)
    yield "wide", case(67, 253, gen, 1.0, 1.0, mode)


def perf_cases(gen):
    yield "256", case(256, 256, gen, 1.0, 0.5)
    yield "2048", case(2048, 2048, gen, 1.0, 0.5)
    yield "4096", case(4096, 4096, gen, 1.0, 0.5)


TASK = Task(
    id="MatrixMultiply/symmetric_mm_and_abs_sum",
    entry="symmetric_mm_and_abs_sum",
    signature="symmetric_mm_and_abs_sum(A: Tensor, C: Tensor, alpha: float, beta: float) -> Tensor",
    description="Updates C in place to alpha·(A @ Aᵀ) + beta·C, where A is (n, m) and C is (n, n), and returns "
                "the sum of the absolute values of the updated C as a 0-d float32 tensor.",
    math=r"C \leftarrow \alpha A A^\top + \beta C;\quad \mathrm{out} = \sum_{ij} |C_{ij}|",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, C float32; output a 0-d float32 tensor; C updated in place",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True, mutates=(1,),
                      notes="TF32 products carry ~1e-3 relative error, hence the tolerance scaled by the RMS of "
                            "each compared tensor (the sum and the updated C). Atomics for the final sum are "
                            "allowed."),
    flops=lambda call, out: 2.0 * call.args[0].shape[0] ** 2 * call.args[0].shape[1] + 4.0 * call.args[1].numel(),
    unit="tf32",
)
