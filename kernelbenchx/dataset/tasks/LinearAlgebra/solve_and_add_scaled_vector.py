"""LinearAlgebra/solve_and_add_scaled_vector: x = U⁻¹·b (upper triangular U) plus alpha·y."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor, b: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    x = torch.linalg.solve_triangular(A, b, upper=True)
    x += alpha * y
    return x


def with_lower_junk(u, gen, mode="standard"):
    """An upper triangular matrix with unrelated values below the diagonal, which must be ignored."""
    return u + torch.tril(inv.gaussian(u.shape, gen, mode, dtype=u.dtype), -1)


def upper(n, gen, mode="standard", dtype=torch.float64, batch=()):
    return inv.cholesky_factor(n, gen, mode, dtype, batch, upper=True)


def fixed_cases(gen):
    f64 = torch.float64
    yield "example", Call(torch.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=f64), torch.tensor([[5.0], [6.0]], dtype=f64),
                          torch.tensor([[1.0], [2.0]], dtype=f64), 0.5)
    yield "alpha_zero", Call(upper(5, gen), inv.gaussian((5, 2), gen), inv.gaussian((5, 2), gen), 0.0)
    yield "negative_alpha", Call(upper(6, gen), inv.gaussian((6, 1), gen), inv.gaussian((6, 1), gen), -2.5)
    yield "lower_triangle_ignored", Call(with_lower_junk(upper(7, gen), gen), inv.gaussian((7, 3), gen),
                                         inv.gaussian((7, 3), gen), 1.0)
    yield "y_broadcast_column", Call(upper(8, gen), inv.gaussian((8, 3), gen), inv.gaussian((8, 1), gen), 2.0)
    yield "y_broadcast_row", Call(upper(4, gen), inv.gaussian((4, 3), gen), inv.gaussian((3,), gen), 0.75)
    yield "batch", Call(upper(5, gen, batch=(2,)), inv.gaussian((2, 5, 2), gen), inv.gaussian((5, 2), gen), 1.5)
    yield "float32", Call(upper(9, gen, dtype=torch.float32), inv.gaussian((9, 1), gen, dtype=torch.float32),
                          inv.gaussian((9, 1), gen, dtype=torch.float32), 1.0)


def random_cases(gen, mode):
    yield "n128_k1", Call(upper(128, gen, mode), inv.gaussian((128, 1), gen, mode),
                          inv.gaussian((128, 1), gen, mode), 1.0)
    yield "n200_k8_junk", Call(with_lower_junk(upper(200, gen, mode), gen, mode), inv.gaussian((200, 8), gen, mode),
                               inv.gaussian((200, 8), gen, mode), -0.5)
    yield "batch", Call(upper(40, gen, mode, batch=(3,)), inv.gaussian((3, 40, 4), gen, mode),
                        inv.gaussian((40, 1), gen, mode), 3.0)
    f32 = torch.float32
    yield "float32_n300_k1", Call(with_lower_junk(upper(300, gen, mode, f32), gen, mode),
                                  inv.gaussian((300, 1), gen, mode, f32), inv.gaussian((300, 1), gen, mode, f32), 0.5)


def perf_cases(gen):
    f32 = torch.float32
    for n in (64, 256, 1024):
        yield f"n{n}_k1", Call(upper(n, gen, dtype=f32), inv.gaussian((n, 1), gen, dtype=f32),
                               inv.gaussian((n, 1), gen, dtype=f32), 1.0)


def flops(call, out):
    n = call.args[0].shape[-1]
    return (n + 2.0) * out.numel()  # n² per right-hand side for the solve, then a multiply-add per element


TASK = Task(
    id="LinearAlgebra/solve_and_add_scaled_vector",
    entry="solve_and_add_scaled_vector",
    signature="solve_and_add_scaled_vector(A: Tensor, b: Tensor, y: Tensor, alpha: float) -> Tensor",
    description="Solves the upper triangular system A·x = b by back substitution and returns x + alpha·y. A has "
                "shape (*, n, n); only its upper triangle (diagonal included) is read, entries below the "
                "diagonal are treated as zero whatever they hold. b has shape (*, n, k) (a single right-hand side "
                "is (n, 1)); batch dimensions of A and b broadcast. y must broadcast to the shape of x (e.g. "
                "(n, k), (n, 1) or (k,)). alpha is a Python float. Returns a new tensor of x's shape in b's dtype.",
    math=r"x = A^{-1} b \;(A \text{ upper triangular}),\qquad \text{out} = x + \alpha y",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A, b, y float64 or float32, same dtype; output the same dtype",
        tolerance=inv.shown_tolerance(torch.float64, 8.0),
        accumulation="the input dtype",
        # expanded (stride-0) views repeat a row of A: its diagonal becomes that row's entries, possibly tiny
        layouts=inv.STRUCTURED_LAYOUTS,
        notes="The result is unique and compared elementwise: |out − ref| ≤ 8·tol·(RMS(ref) + |ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256, float64). A's upper triangle is a Cholesky factor of a "
              "well-conditioned matrix.",
    ),
    flops=flops,
    check=inv.close_check(8.0),
    deviations=(
        Deviation(Kind.COVERAGE, "float64 inputs, A (n, n) with b and y of shape (n, 1)",
                  "float64 and float32 (the perf dtype); also batched A, several right-hand sides, y broadcast "
                  "along rows or columns, and junk below A's diagonal",
                  "the same operation over the shapes its signature and solve_triangular accept"),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|out − ref| ≤ 8·tol·(RMS(ref) + |ref|), tol = 64·√n·ε",
                  "an error bound that scales with the dtype and n, as back substitution's does"),
        Deviation(Kind.PERF, "float32, n = 32 … 1024 with k = 1 (6 rows)", "float32, n = 64, 256, 1024, k = 1",
                  "a subset of upstream's rows spanning its range"),
    ),
)
