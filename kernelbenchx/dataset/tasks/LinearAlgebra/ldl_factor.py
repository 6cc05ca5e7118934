"""LinearAlgebra/ldl_factor: compact Bunch-Kaufman LDLᵀ factorization of symmetric (indefinite) matrices."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, *, hermitian: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    return tuple(torch.linalg.ldl_factor(A, hermitian=hermitian))


def symmetric_gaussian(n, gen, mode="standard", batch=()):
    g = inv.gaussian((*batch, n, n), gen, mode)
    return (g + g.mT) / 2


def fixed_cases(gen):
    f64 = torch.float64
    yield "example", Call(torch.tensor([[7.2079, 4.2414, 1.9428], [4.2414, 3.4554, 0.3264],
                                        [1.9428, 0.3264, 1.3823]]))
    yield "swap_2x2_block", Call(torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=f64))
    yield "1x1", Call(torch.tensor([[-2.0]], dtype=f64))
    yield "diagonal_indefinite", Call(torch.diag(torch.tensor([3.0, -1.0, 0.5, -4.0], dtype=f64)))
    yield "gaussian_symmetric", Call(symmetric_gaussian(9, gen))
    yield "hermitian_flag", Call(inv.spd(6, gen), hermitian=True)
    yield "batch", Call(inv.symmetric_indefinite(7, gen, batch=(3,)))
    yield "float32", Call(inv.symmetric_indefinite(12, gen, dtype=torch.float32))


def random_cases(gen, mode):
    yield "spd_n64", Call(inv.spd(64, gen, mode), hermitian=inv.coin(gen))
    yield "indefinite_n100", Call(inv.symmetric_indefinite(100, gen, mode))
    yield "gaussian_symmetric_n48", Call(symmetric_gaussian(48, gen, mode), hermitian=inv.coin(gen))
    yield "batch", Call(inv.symmetric_indefinite(33, gen, mode, batch=(3,)))
    yield "float32_indefinite_n90", Call(inv.symmetric_indefinite(90, gen, mode, torch.float32),
                                         hermitian=inv.coin(gen))
    # symmetric Gaussian matrices take many 2×2 pivots: at n = 100 the rank-2 update spans two row tiles
    yield "gaussian_symmetric_n100", Call(symmetric_gaussian(100, gen, mode), hermitian=inv.coin(gen))


def perf_cases(gen):
    for n in (32, 256, 1024):
        yield f"n{n}", Call(inv.symmetric_indefinite(n, gen, dtype=torch.float32))


def flops(call, out):
    n = call.args[0].shape[-1]
    return inv.batch_count(call.args[0]) * n ** 3 / 3


TASK = Task(
    id="LinearAlgebra/ldl_factor",
    entry="ldl_factor",
    signature="ldl_factor(A: Tensor, *, hermitian: bool = False) -> tuple[Tensor, Tensor]",
    description="Computes the LDLᵀ factorization with Bunch-Kaufman (symmetric) pivoting of a real symmetric, "
                "possibly indefinite matrix (or of each matrix of a batch of shape (*, n, n)), in LAPACK sytrf's "
                "compact lower-triangle format. Returns (LD, pivots): LD has A's shape and dtype and is lower "
                "triangular (exact zeros above the diagonal); pivots has shape (*, n), dtype int32, 1-based. "
                "A = L·D·Lᵀ with L = P(1)·L(1)·P(2)·L(2)···, k increasing in steps of the block size s (1 or 2): "
                "if pivots[k] > 0, rows and columns k and pivots[k] were interchanged and D has a 1×1 block "
                "D_kk = LD[k,k], whose multipliers v = LD[k+1:, k] fill column k of the unit lower triangular "
                "L(k); if pivots[k] = pivots[k+1] < 0, rows and columns k+1 and −pivots[k] were interchanged and D "
                "has a symmetric 2×2 block stored in LD[k,k], LD[k+1,k], LD[k+1,k+1], with multipliers "
                "LD[k+2:, k:k+2]. P(k) is the interchange of step k. (All indices here are 1-based as in LAPACK.) "
                "The pivot choice itself is free as long as the output is a valid factorization in this format; "
                "hermitian only matters for complex input and has no effect here. (torch.linalg.ldl_factor; "
                "`out=` is dropped.)",
    math=(r"A = L D L^{\mathsf T},\quad L = P_1 L_1 P_2 L_2 \cdots,\quad D ="
          r" \operatorname{blockdiag}(D_k),\ D_k \in \mathbb{R}^{1\times1} \cup \mathbb{R}^{2\times2}"),
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float64 or float32 of shape (*, n, n), symmetric; LD the same shape and dtype, pivots int32 "
               "of shape (*, n)",
        tolerance=inv.shown_tolerance(torch.float64, 2.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row: the matrix is no longer symmetric
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The Tolerance line above (tol at n = 256) is not applied elementwise: this is "
              "judged as a factorization (pivot choices are free): LD must be finite and exactly "
              "zero above the diagonal, the pivots must parse as valid 1×1 / 2×2 blocks with in-range "
              "interchanges, and the L·D·Lᵀ they encode must rebuild A with ‖rebuilt − A‖_F ≤ 2·tol·‖A‖_F, where "
              f"{inv.tolerance_text()}. Test matrices are SPD, symmetric Gaussian, or permuted saddle-point "
              "matrices [[S, C], [Cᵀ, 0]] whose zero diagonal forces pivoting.",
    ),
    flops=flops,
    check=inv.ldl_check,
    deviations=(
        Deviation(Kind.COVERAGE, "float64 and complex64 inputs (symmetric and Hermitian)",
                  "real inputs only: float64 as upstream plus float32 (the perf dtype); hermitian is drawn but has "
                  "no effect on real input",
                  "Triton has no complex dtype, so a complex case tests interleaved-pair arithmetic rather than "
                  "the factorization; float32 cases check the dtype the perf cases time"),
        Deviation(Kind.TOLERANCE, "LD and pivots compared with torch's elementwise (rtol = atol = 1e-5, pivots "
                  "exactly)", "any valid sytrf-format factorization: pivots parse as 1×1/2×2 blocks and "
                  "L·D·Lᵀ rebuilds A within 2·tol·‖A‖_F, tol = 64·√n·ε",
                  "Bunch-Kaufman pivot decisions compare computed magnitudes, so near ties may go either way; "
                  "judging the factorization it encodes accepts every correct choice"),
        Deviation(Kind.PERF, "float32, n = 32 … 1024 (6 rows)", "float32, n = 32, 256, 1024",
                  "a subset of upstream's rows spanning its range"),
    ),
)
