"""MatrixMultiply/matrix_multiply_symmetric: C1 = α·A@B + β·C, then α·C1@C1ᵀ + β·C1."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    C = alpha * torch.mm(A, B) + beta * C
    return alpha * torch.mm(C, C.T) + beta * C


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((m, n), gen, mode), sample((n, n), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0.5, -1.0], [1.5, 2.0]]),
                          torch.eye(2), 2.0, 0.5)
    yield "odd", case(33, 17, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 40, gen, 0.2, 0.0)
    yield "alpha_negative", case(9, 5, gen, -1.0, 0.3)
    yield "alpha_zero", case(12, 7, gen, 0.0, 2.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0 / 16, 0.5, mode)
    yield "odd", case(129, 255, gen, 0.1, -0.7, mode)
    yield "wide", case(67, 253, gen, 0.05, 1.0, mode)


def perf_cases(gen):
    for n in (256, 1024, 2048, 4096):  # rows of upstream's square sweep, with its alpha = 1, beta = 0.5
        yield f"{n}", case(n, n, gen, 1.0, 0.5)


TASK = Task(
    id="MatrixMultiply/matrix_multiply_symmetric",
    entry="matrix_multiply_symmetric",
    signature="matrix_multiply_symmetric(A: Tensor, B: Tensor, C: Tensor, alpha: float, beta: float) -> Tensor",
    description="Two chained updates: C1 = alpha·(A @ B) + beta·C, then returns alpha·(C1 @ C1ᵀ) + beta·C1. "
                "A is (n, m), B is (m, n) and C is (n, n) (square, so that C1 @ C1ᵀ and C1 have the same shape). "
                "Returns a new float32 (n, n) tensor; C is not modified.",
    math=r"C_1 = \alpha AB + \beta C;\quad \mathrm{out} = \alpha\, C_1 C_1^\top + \beta C_1",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, B, C float32; output float32 (n, n)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms",
                                          rel_rms=_precision.REL_RMS_CHAINED),
                      tf32=True, precision=_precision.PRECISION + " (the bound is twice a single product's: the "
                                                                  "second product's operands carry the first one's "
                                                                  "error)"),
    flops=lambda call, out: 2.0 * call.args[0].shape[0] ** 2 * (call.args[0].shape[1] + call.args[0].shape[0]),
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32 products)",
                  "TF32 products allowed: |out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and relative RMS error ≤ "
                  f"{_precision.REL_RMS_CHAINED:g}",
                  "fp32 GEMMs run on TF32 tensor cores (Triton's tl.dot defaults to it); the relative RMS bound "
                  "still rejects bf16 operands"),
        Deviation(Kind.PERF, "31 square sizes 256 … 4096, timed in float16", "n = m = 256, 1024, 2048, 4096 in float32",
                  "the timed inputs have the dtype the task is judged in"),
    ),
)
