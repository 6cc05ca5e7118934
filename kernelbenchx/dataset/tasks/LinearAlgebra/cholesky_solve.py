"""LinearAlgebra/cholesky_solve: solve A·X = B given the Cholesky factor of A."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(B: torch.Tensor, L: torch.Tensor, upper: bool = False) -> torch.Tensor:
    return torch.cholesky_solve(B, L, upper=upper)


def with_junk(f, upper, gen, mode="standard"):
    """A triangular factor with unrelated values in its other triangle, which must not be read."""
    junk = inv.gaussian(f.shape, gen, mode, dtype=f.dtype)
    return f + (torch.tril(junk, -1) if upper else torch.triu(junk, 1))


def fixed_cases(gen):
    f64, f32 = torch.float64, torch.float32
    yield "2x2", Call(torch.tensor([[1.0], [2.0]], dtype=f64), torch.tensor([[2.0, 0.0], [1.0, 3.0]], dtype=f64))
    yield "identity", Call(inv.gaussian((4, 3), gen), torch.eye(4, dtype=f64))
    yield "upper", Call(inv.gaussian((9, 2), gen), inv.cholesky_factor(9, gen, upper=True), True)
    yield "upper_keyword", Call(inv.gaussian((6, 1), gen), inv.cholesky_factor(6, gen, upper=True), upper=True)
    yield "batch", Call(inv.gaussian((3, 5, 2), gen), inv.cholesky_factor(5, gen, batch=(3,)))
    yield "broadcast_L", Call(inv.gaussian((2, 7, 3), gen), inv.cholesky_factor(7, gen))
    yield "broadcast_B", Call(inv.gaussian((7, 3), gen), inv.cholesky_factor(7, gen, batch=(2,)))
    yield "other_triangle_ignored", Call(inv.gaussian((8, 2), gen), with_junk(inv.cholesky_factor(8, gen), False, gen))
    yield "float32", Call(inv.gaussian((17, 4), gen, dtype=f32), inv.cholesky_factor(17, gen, dtype=f32))


def random_cases(gen, mode):
    f32 = torch.float32
    upper = inv.coin(gen)
    yield "n128_k10", Call(inv.gaussian((128, 10), gen, mode),
                           with_junk(inv.cholesky_factor(128, gen, mode, upper=upper), upper, gen, mode), upper)
    yield "n200_k3_upper", Call(inv.gaussian((200, 3), gen, mode), inv.cholesky_factor(200, gen, mode, upper=True),
                                True)
    upper = inv.coin(gen)
    yield "batch", Call(inv.gaussian((4, 48, 7), gen, mode), inv.cholesky_factor(48, gen, mode, batch=(4,),
                                                                                   upper=upper), upper=upper)
    upper = inv.coin(gen)
    yield "float32_n300_k10", Call(inv.gaussian((300, 10), gen, mode, f32),
                                   inv.cholesky_factor(300, gen, mode, f32, upper=upper), upper)


def perf_cases(gen):
    f32 = torch.float32
    for n in (256, 4096, 16384):
        yield f"n{n}_k10", Call(inv.gaussian((n, 10), gen, dtype=f32), inv.cholesky_factor(n, gen, dtype=f32))


def flops(call, out):
    n = call.args[1].shape[-1]
    return 2.0 * n * out.numel()  # two triangular solves, n² per right-hand side each


TASK = Task(
    id="LinearAlgebra/cholesky_solve",
    entry="cholesky_solve",
    signature="cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor",
    description="Solves A·X = B for X, where A = L·Lᵀ is symmetric positive definite and only its Cholesky factor "
                "is given: L of shape (*, n, n) is lower triangular (upper=False, A = L·Lᵀ) or upper triangular "
                "(upper=True, A = Lᵀ·L); only that triangle of L is read (the other one may hold anything). B has "
                "shape (*, n, k); batch dimensions of B and L broadcast. Returns X with the broadcast batch shape, "
                "n×k matrices, and B's dtype. (torch.cholesky_solve; `out=` is dropped.)",
    math=r"X = (L L^{\mathsf T})^{-1} B \;\text{(lower)},\qquad X = (U^{\mathsf T} U)^{-1} B \;\text{(upper)}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="B and L float64 or float32, same dtype; output the same dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row of L: the factor becomes singular
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The solution is unique and compared elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), "
              f"with {inv.tolerance_text()} (the line above is n = 256, float64). L is the Cholesky factor of a "
              "well-conditioned matrix (eigenvalues in about [1, 5]).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype); factors "
                  "with junk in the unused triangle",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "|X − X_ref| ≤ 8·tol·(RMS + |X_ref|), "
                  "tol = 64·√n·ε", "an error bound that scales with the dtype and n, as a triangular solve's does"),
        Deviation(Kind.PERF, "float32, n = 16 … 32768 with k = 10 (12 rows)", "float32, n = 256, 4096, 16384, "
                  "k = 10", "a subset of upstream's rows; n = 32768 is left out because building three SPD factors "
                  "of that size (in float64, then cast) takes tens of seconds and 24 GB per input set"),
    ),
)
