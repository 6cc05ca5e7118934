"""LinearAlgebra/solve_symmetric_ldl: solve a symmetric (indefinite) system A·x = b through LDLᵀ."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.layouts import transposed
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, b: torch.Tensor, *, hermitian: bool = False) -> torch.Tensor:
    LD, pivots = torch.linalg.ldl_factor(A, hermitian=hermitian)
    vector = b.dim() == 1 or (b.dim() == A.dim() - 1 and b.shape == A.shape[:-1])
    B = b.unsqueeze(-1) if vector else b
    x = torch.linalg.ldl_solve(LD, pivots, B, hermitian=hermitian)
    return x.squeeze(-1) if vector else x


def fixed_cases(gen):
    f32 = torch.float32
    yield "example", Call(torch.tensor([[4.0, 1.0, 1.0], [1.0, 3.0, 0.0], [1.0, 0.0, 2.0]]),
                          torch.tensor([1.0, 2.0, 3.0]))
    yield "needs_pivot", Call(torch.tensor([[0.0, 1.0], [1.0, 0.0]]), torch.tensor([[2.0], [3.0]]))
    yield "indefinite_matrix_rhs", Call(inv.symmetric_indefinite(9, gen, dtype=f32),
                                        inv.gaussian((9, 3), gen, dtype=f32))
    yield "hermitian_flag", Call(inv.spd(6, gen, dtype=f32), inv.gaussian((6,), gen, dtype=f32), hermitian=True)
    yield "batch_vectors", Call(inv.symmetric_indefinite(5, gen, dtype=f32, batch=(2,)),
                                inv.gaussian((2, 5), gen, dtype=f32))
    yield "1x1", Call(torch.tensor([[-2.0]]), torch.tensor([3.0]))
    # a matrix right-hand side stored column-major (unit stride down the rows, not along them)
    yield "matrix_rhs_column_major", Call(inv.symmetric_indefinite(10, gen, dtype=f32),
                                          transposed(inv.gaussian((10, 4), gen, dtype=f32)))


def random_cases(gen, mode):
    f32 = torch.float32
    yield "spd_n64_vector", Call(inv.spd(64, gen, mode, f32), inv.gaussian((64,), gen, mode, f32),
                                 hermitian=inv.coin(gen))
    yield "indefinite_n120_k3", Call(inv.symmetric_indefinite(120, gen, mode, f32),
                                     inv.gaussian((120, 3), gen, mode, f32), hermitian=inv.coin(gen))
    yield "batch", Call(inv.symmetric_indefinite(40, gen, mode, f32, batch=(3,)), inv.gaussian((3, 40), gen, mode, f32))


def perf_cases(gen):
    f32 = torch.float32
    for n in (64, 256, 512):
        yield f"n{n}_k1", Call(inv.symmetric_indefinite(n, gen, dtype=f32), inv.gaussian((n, 1), gen, dtype=f32))


def flops(call, out):
    a = call.args[0]
    n = a.shape[-1]
    return inv.batch_count(a) * n ** 3 / 3 + 2.0 * n * out.numel()


TASK = Task(
    id="LinearAlgebra/solve_symmetric_ldl",
    entry="solve_symmetric_ldl",
    signature="solve_symmetric_ldl(A: Tensor, b: Tensor, *, hermitian: bool = False) -> Tensor",
    description="Solves A·x = b for a real symmetric, possibly indefinite, invertible matrix A of shape (*, n, n) "
                "through a symmetric LDLᵀ factorization (A = L·D·Lᵀ with symmetric pivoting, D block diagonal "
                "with 1×1 and 2×2 blocks; plain LDLᵀ without pivoting breaks down on these inputs, some of which "
                "have zero diagonal entries). b is a vector batch when b.ndim == 1 or b.shape == A.shape[:-1] "
                "(x then has b's shape), otherwise a matrix batch (*, n, k). hermitian only matters for complex "
                "input and has no effect here. Returns x in b's dtype. (`out=` is dropped.)",
    math=r"A = L D L^{\mathsf T},\qquad x = A^{-1} b",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A and b float32, same dtype; output float32",
        tolerance=inv.shown_tolerance(torch.float32, 8.0),
        # expanded (stride-0) views repeat a row: the matrix is no longer symmetric (and singular)
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The solution is unique and compared elementwise: |x − x_ref| ≤ 8·tol·(RMS(x_ref) + |x_ref|), "
              f"with {inv.tolerance_text()} (the line above is n = 256). Inputs are SPD or permuted saddle-point "
              "matrices [[S, C], [Cᵀ, 0]] (condition numbers below about 40).",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.COVERAGE, "float32 and complex64 (Hermitian) inputs", "float32 inputs only; hermitian is "
                  "drawn but has no effect on real input",
                  "Triton has no complex dtype, so a complex case tests interleaved-pair arithmetic rather than "
                  "the solver"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|x − x_ref| ≤ 8·tol·(RMS(x_ref) + |x_ref|), tol = 64·√n·ε",
                  "a float32 solve of an indefinite system with condition number near 40 carries errors above "
                  "1e-5 in any order of operations; the bound scales with n"),
        Deviation(Kind.PERF, "float32, n = 8 … 512 with one right-hand side (7 rows)",
                  "float32, n = 64, 256, 512, k = 1", "a subset of upstream's rows; below n = 64 the timing is "
                  "launch overhead"),
    ),
)
