"""MatrixMultiply/matrix_vector_dot: y ← α·A x + β·y in place, then the dot of the updated y with x."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.task import Call, Task, sample


def reference(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    y.copy_(alpha * torch.mv(A, x) + beta * y)
    return torch.dot(y, x)


def check(call, output, expected, contract):
    """y elementwise (RMS-scaled); the dot against its natural scale ‖y‖·‖x‖/√n, since it may cancel to
    almost nothing while the summation error does not shrink with it."""
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        return "output: expected the dot product (and y updated in place)"
    reason = compare(output[1], expected[1], contract.tolerance, "y")
    if reason:
        return reason
    y, x = expected[1].double(), call.args[1].double()
    scale = float(y.norm() * x.norm()) / max(y.numel(), 1) ** 0.5
    return compare(output[0], expected[0], Tolerance(rtol=1e-5, atol=1e-4 * scale), "output")


def case(n, m, gen, alpha, beta, mode="standard"):
    return Call(sample((n, m), gen, mode), sample((m,), gen, mode), sample((n,), gen, mode), alpha, beta)


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0.5, -1.0]),
                          torch.tensor([1.0, 2.0]), 2.0, 0.5)
    yield "odd", case(33, 33, gen, 0.5, 1.0)
    yield "beta_zero", case(16, 16, gen, 0.2, 0.0)
    yield "alpha_zero", case(31, 31, gen, 0.0, 1.5)
    yield "single", case(1, 1, gen, 2.0, -1.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, gen, 1.0, 1.0, mode)
    yield "odd", case(511, 511, gen, 0.7, -0.3, mode)
    yield "larger", case(547, 547, gen, 1.5, 0.5, mode)


def perf_cases(gen):
    yield "1024", case(1024, 1024, gen, 1.0, 1.0)
    yield "8192", case(8192, 8192, gen, 1.0, 1.0)
    yield "16384", case(16384, 16384, gen, 1.0, 1.0)


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
                      tolerance=Tolerance(rtol=1e-5, atol=1e-4, scale="rms"), mutates=(2,),
                      notes="fp32 throughout (no TF32; matrix-vector products are memory-bound). y is compared with "
                            "atol scaled by its RMS (reassociation of the row sums); the dot with "
                            "|out − ref| ≤ 1e-5·|ref| + 1e-4·‖y‖‖x‖/√n."),
    check=check,
    flops=lambda call, out: 2.0 * call.args[0].numel() + 5.0 * call.args[2].numel(),
)
