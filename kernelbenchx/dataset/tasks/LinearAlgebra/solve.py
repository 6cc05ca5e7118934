"""LinearAlgebra/solve: the solution of A·X = B (or X·A = B) for square invertible A, with broadcasting."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, B: torch.Tensor, *, left: bool = True) -> torch.Tensor:
    return torch.linalg.solve(A, B, left=left)


def fixed_cases(gen):
    f64 = torch.float64
    yield "2x2_vector", Call(torch.tensor([[3.0, 1.0], [1.0, 2.0]]), torch.tensor([9.0, 8.0]))
    yield "3x3_needs_pivot", Call(torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 4.0], [5.0, 6.0, 0.0]], dtype=f64),
                                  torch.tensor([6.0, 4.0, 3.0], dtype=f64))
    yield "matrix_rhs", Call(inv.shuffled_rows(inv.well_conditioned(6, 6, gen), gen), inv.gaussian((6, 4), gen))
    yield "right_side", Call(inv.well_conditioned(5, 5, gen), inv.gaussian((3, 5), gen), left=False)
    yield "batch_vectors", Call(inv.well_conditioned(4, 4, gen, batch=(2,)), inv.gaussian((2, 4), gen))
    yield "broadcast_B", Call(inv.well_conditioned(3, 3, gen, batch=(2,)), inv.gaussian((3, 1), gen))
    yield "broadcast_vector", Call(inv.well_conditioned(3, 3, gen, batch=(2,)), inv.gaussian((3,), gen))
    yield "broadcast_A", Call(inv.well_conditioned(5, 5, gen), inv.gaussian((2, 5, 2), gen))
    yield "float32", Call(inv.shuffled_rows(inv.well_conditioned(10, 10, gen, dtype=torch.float32), gen),
                          inv.gaussian((10, 3), gen, dtype=torch.float32))


def random_cases(gen, mode):
    f32 = torch.float32
    yield "n96_k4", Call(inv.shuffled_rows(inv.well_conditioned(96, 96, gen, mode), gen),
                         inv.gaussian((96, 4), gen, mode))
    yield "n200_vector", Call(inv.shuffled_rows(inv.well_conditioned(200, 200, gen, mode), gen),
                              inv.gaussian((200,), gen, mode))
    yield "batch", Call(inv.shuffled_rows(inv.well_conditioned(33, 33, gen, mode, batch=(4,)), gen),
                        inv.gaussian((4, 33, 5), gen, mode))
    yield "right_n64", Call(inv.shuffled_rows(inv.well_conditioned(64, 64, gen, mode), gen),
                            inv.gaussian((7, 64), gen, mode), left=False)
    left = inv.coin(gen)
    yield "float32_n300", Call(inv.shuffled_rows(inv.well_conditioned(300, 300, gen, mode, f32), gen),
                               inv.gaussian((300, 2) if left else (2, 300), gen, mode, f32), left=left)


def perf_cases(gen):
    f32 = torch.float32
    for n in (64, 512, 2048):
        yield f"n{n}_k1", Call(inv.shuffled_rows(inv.well_conditioned(n, n, gen, dtype=f32), gen),
                               inv.gaussian((n, 1), gen, dtype=f32))


def flops(call, out):
    a = call.args[0]
    n = a.shape[-1]
    # one LU per distinct A, then two triangular solves (2n² per right-hand side, i.e. 2n per element of X)
    return inv.batch_count(a) * inv.lu_flops(n, n) + 2.0 * n * out.numel()


TASK = Task(
    id="LinearAlgebra/solve",
    entry="solve",
    signature="solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor",
    description="Solves the square system A·X = B (left=True) or X·A = B (left=False) for X, A of shape (*, n, n) "
                "invertible. B is a batch of vectors when B.ndim == 1 or B.shape == A.shape[:-1] (X then has B's "
                "vector shape), otherwise a batch of n×k matrices (*, n, k) for left=True or (*, k, n) for "
                "left=False; vector B is only allowed with left=True. Batch dimensions of A and B broadcast. X has "
                "B's dtype. Use LU factorization with partial pivoting (the test matrices need row interchanges). "
                "(torch.linalg.solve; `out=` is dropped.)",
    math=r"X = A^{-1} B \;(\text{left}),\qquad X = B A^{-1} \;(\text{right})",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A and B float64 or float32, same dtype; output the same dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row of A: every matrix becomes singular
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The solution is unique and compared elementwise: |X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256, float64). Test matrices are 2I + G/√n with rows "
              "shuffled (well-conditioned).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs", "float64 inputs plus float32 cases (the perf dtype)",
                  "the perf cases time float32, so correctness is checked in that dtype too"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|X − X_ref| ≤ 8·tol·(RMS(X_ref) + |X_ref|), tol = 64·√n·ε",
                  "an error bound that scales with the dtype and n, as a solve's rounding error does"),
        Deviation(Kind.PERF, "float32, n = 16 … 2048 with one right-hand side (8 rows)",
                  "float32, n = 64, 512, 2048, k = 1", "a subset of upstream's rows spanning its range"),
    ),
)
