"""LinearAlgebra/cholesky: the Cholesky factor of symmetric positive-definite matrices, lower or upper."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, upper: bool = False) -> torch.Tensor:
    return torch.linalg.cholesky(A, upper=upper)


def fixed_cases(gen):
    yield "2x2", Call(torch.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=torch.float64))
    yield "1x1", Call(torch.tensor([[9.0]], dtype=torch.float64))
    yield "diagonal", Call(torch.diag(torch.tensor([1.0, 4.0, 9.0, 16.0, 0.25], dtype=torch.float64)))
    yield "upper", Call(inv.spd(7, gen), upper=True)
    yield "batch", Call(inv.spd(5, gen, batch=(3,)))
    yield "float32", Call(inv.spd(33, gen, dtype=torch.float32))
    yield "float32_upper_batch", Call(inv.spd(19, gen, dtype=torch.float32, batch=(2, 2)), upper=True)
    yield "large_scale", Call(inv.spd(12, gen) * 1e6)


def random_cases(gen, mode):
    yield "n96", Call(inv.spd(96, gen, mode), upper=inv.coin(gen))
    yield "n257_upper", Call(inv.spd(257, gen, mode), upper=True)
    yield "batch", Call(inv.spd(31, gen, mode, batch=(4,)), upper=inv.coin(gen))
    yield "float32_n200", Call(inv.spd(200, gen, mode, torch.float32), upper=inv.coin(gen))


def perf_cases(gen):
    for n in (256, 2048, 8192):
        yield f"n{n}", Call(inv.spd(n, gen, dtype=torch.float32))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * n ** 3 / 3


TASK = Task(
    id="LinearAlgebra/cholesky",
    entry="cholesky",
    signature="cholesky(A: Tensor, *, upper: bool = False) -> Tensor",
    description="Computes the Cholesky factorization A = L·Lᵀ of a real symmetric positive-definite matrix (or each "
                "matrix of a batch of shape (*, n, n)). Returns the lower-triangular factor L, whose diagonal is "
                "positive, with zeros above the diagonal; with upper=True returns U = Lᵀ (upper triangular, zeros "
                "below the diagonal) so that A = Uᵀ·U. A is exactly symmetric, so either triangle may be read. "
                "The output has A's shape and "
                "dtype. (torch.linalg.cholesky; the `out=` argument is dropped.)",
    math=r"A = L L^{\mathsf T},\; L_{ii} > 0,\; L_{ij} = 0 \text{ for } j > i",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, n, n), symmetric positive definite; output the same shape and "
               "dtype",
        tolerance=inv.shown_tolerance(torch.float64, 4.0),
        accumulation="the input dtype (float64 for float64 inputs)",
        # expanded (stride-0) views repeat a row: the matrix is no longer positive definite
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="Judged as a factorization, not elementwise: the output must be finite, exactly zero on the other "
              "side of the diagonal, with a real positive diagonal; L·Lᵀ (Uᵀ·U) must rebuild A with "
              "‖rebuilt − A‖_F ≤ tol·‖A‖_F, and since the factor is unique it must also match the reference "
              f"with ‖L − L_ref‖_F ≤ 4·tol·‖L_ref‖_F, where {inv.tolerance_text()}. The Tolerance line above "
              "shows 4·tol at n = 256 (float64) but is not applied elementwise. Inputs are well-conditioned "
              "(eigenvalues in about [1, 5]).",
    ),
    flops=flops,
    unit="fp32",
    check=inv.cholesky_check,
    deviations=(
        Deviation(Kind.COVERAGE, "float64, complex64 and complex128 (Hermitian) inputs",
                  "real inputs only: float64 as upstream plus float32 (the perf dtype)",
                  "Triton has no complex dtype, so a complex case tests interleaved-pair arithmetic rather than "
                  "the factorization; float32 cases check the dtype the perf cases time"),
        Deviation(Kind.TOLERANCE, "assert_close of L with torch's at rtol = atol = 1e-5",
                  "L·Lᵀ rebuilds A within tol·‖A‖_F and ‖L − L_ref‖_F ≤ 4·tol·‖L_ref‖_F, tol = 64·√n·ε",
                  "the factor is unique, so this is the same test with an error bound that scales with the "
                  "dtype and n (1e-5 is loose for float64 and too tight for float32 at n = 8192)"),
        Deviation(Kind.PERF, "float32, n = 256 … 8192 (6 rows)", "float32, n = 256, 2048, 8192",
                  "a subset of upstream's rows spanning its range"),
    ),
)
