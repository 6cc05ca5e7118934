"""MatrixMultiply/tril_mm_and_scale: beta·(alpha·(tril(A) @ B)), the lower triangle of A only."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(A: torch.Tensor, B: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    B = alpha * torch.mm(torch.tril(A), B)
    return beta * B


def case(n, p, gen, alpha, beta, mode="standard"):
    return Call(sample((n, n), gen, mode), sample((n, p), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[2.0, 3.0], [1.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 0.5, 2.0)
    yield "upper_is_ignored", Call(torch.triu(torch.full((8, 8), 1e6), 1) + torch.eye(8), sample((8, 5), gen),
                                   1.0, 1.0)
    yield "odd", case(33, 17, gen, 0.5, 0.5)
    yield "one_column", case(40, 1, gen, -1.0, 3.0)
    yield "beta_zero", case(9, 9, gen, 1.0, 0.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 0.5, 0.5, mode)
    yield "odd", case(255, 67, gen, 1.5, -0.3, mode)
    yield "wide", case(97, 253, gen, 1.0, 2.0, mode)


def perf_cases(gen):
    for n in (256, 1024, 2048):  # rows of upstream's sweep (16 … 2048)
        yield f"{n}", case(n, n, gen, 0.5, 0.5)


TASK = Task(
    id="MatrixMultiply/tril_mm_and_scale",
    entry="tril_mm_and_scale",
    signature="tril_mm_and_scale(A: Tensor, B: Tensor, alpha: float, beta: float) -> Tensor",
    description="Returns beta·(alpha·(tril(A) @ B)), where tril(A) keeps the main diagonal and below of the "
                "square (n, n) matrix A and zeroes the rest (values above the diagonal, whatever they are, "
                "do not contribute). B is (n, p); the output is a new float32 (n, p) tensor.",
    math=r"\mathrm{out} = \beta\,\alpha\,\mathrm{tril}(A)\,B",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, B float32; output float32 (n, p)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=_precision.REL_RMS),
                      tf32=True, precision=_precision.PRECISION),
    # Only the lower triangle does work: n(n+1)/2 multiply-adds per output column.
    flops=lambda call, out: float(call.args[0].shape[0] * (call.args[0].shape[0] + 1) * out.shape[1]),
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32 products)",
                  "TF32 products allowed: |out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and relative RMS error ≤ "
                  f"{_precision.REL_RMS:g}",
                  "fp32 GEMMs run on TF32 tensor cores (Triton's tl.dot defaults to it); the relative RMS bound "
                  "still rejects bf16 operands"),
        Deviation(Kind.PERF, "8 sizes n = p = 16 … 2048", "n = p = 256, 1024, 2048",
                  "below 256 the call measures launch overhead"),
    ),
)
