"""MatrixMultiply/matrix_vector_dot: y ← α·A x + β·y in place, then the dot of the updated y with x."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    y.copy_(alpha * torch.mv(A, x) + beta * y)
    return torch.dot(y, x)


def error_bound(call: Call) -> tuple[torch.Tensor, torch.Tensor]:
    """(B of the dot, B of each updated y_i): y_i's m-term accumulation and its two roundings; the dot's n-term
    sum plus the entries' errors propagated (linearly, conservatively)."""
    A, x, y, alpha, beta = call.args
    a, xd, yd = A.double(), x.double(), y.double()
    prod = alpha * (a @ xd)
    new = prod + beta * yd
    entry = abs(alpha) * _precision.acc((a * a) @ (xd * xd), A.shape[1]) + _precision.rounding(prod, beta * yd, new)
    dot = _precision.acc((new * xd).pow(2).sum(), new.numel()) + (entry * xd.abs()).sum()
    return dot, entry


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((m,), gen, mode), sample((n,), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0.5, -1.0]),
                          torch.tensor([1.0, 2.0]), 2.0, 0.5)
    yield "odd", case(33, 33, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 16, gen, 0.2, 0.0)
    yield "alpha_zero", case(31, 31, gen, 0.0, 1.5)
    yield "single", case(1, 1, gen, 2.0, -1.0)
    m = sample((48, 48), gen)
    yield "antisymmetric_dot_cancels", Call(m - m.T, sample((48,), gen), sample((48,), gen), 1.0, 0.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0, 1.0, mode)
    yield "odd", case(511, 511, gen, 0.7, -0.3, mode)
    yield "larger", case(547, 547, gen, 1.5, 0.5, mode)


def perf_cases(gen):
    for n in (1024, 8192, 16384, 32768):  # rows of upstream's sweep (64 … 32768)
        yield f"{n}", case(n, n, gen, 1.0, 1.0)


TASK = Task(
    id="MatrixMultiply/matrix_vector_dot",
    entry="matrix_vector_dot",
    signature="matrix_vector_dot(A: Tensor, x: Tensor, y: Tensor, alpha: float, beta: float) -> Tensor",
    description="Updates y in place to alpha·(A @ x) + beta·y and returns the dot product of the updated y with x "
                "as a 0-d float32 tensor. A is (n, m), x is (m,), y is (n,); the dot product needs n == m "
                "(A is square in every case).",
    math=r"y \leftarrow \alpha A x + \beta y;\quad \mathrm{out} = y^\top x",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A, x, y float32; output a 0-d float32 tensor; y updated in place",
                      tolerance=Tolerance(rtol=0.0, atol=1.0, scale="bound"), mutates=(2,),
                      bound="the fp32 accumulation bound 2·ε·√n·‖terms‖₂ (ε = 2⁻²³) of every sum over n terms: for "
                            "each y_i, |alpha|·2·ε·√m·‖A_i ∘ x‖₂ plus 2·ε·(|alpha·(Ax)_i| + |beta·y_i| + |y'_i|) for "
                            "the scaling and the addition; for the dot, 2·ε·√n·‖y' ∘ x‖₂ plus Σ_i B(y_i)·|x_i|",
                      precision=_precision.STRICT_PRECISION,
                      notes="fp32 throughout, no TF32: matrix-vector products are memory-bound. Split reductions "
                            "and atomics are fine."),
    error_bound=error_bound,
    flops=lambda call, out: 2.0 * call.args[0].numel() + 5.0 * call.args[2].numel(),
    deviations=(
        Deviation(Kind.TOLERANCE, "y and the dot (a python float via .item()) compared at rtol = atol = 1e-5",
                  "fp32 accumulation bounds for y and the dot; no TF32",
                  "y_i and the dot are sums whose rounding grows with their length and terms; a dot that cancels "
                  "can be far below its terms' size while their rounding error is not"),
        Deviation(Kind.PERF, "10 sizes n = 64 … 32768, timed in float16", "n = 1024, 8192, 16384, 32768 in float32",
                  "the timed inputs have the dtype the task is judged in; below n = 1024 the call measures launch "
                  "overhead"),
    ),
)
