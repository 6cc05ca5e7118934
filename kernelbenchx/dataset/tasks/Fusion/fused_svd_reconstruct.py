"""Fusion/fused_svd_reconstruct: compute the thin SVD of a matrix and multiply it back, U·diag(S)·Vh."""

import torch

from kernelbenchx.dataset import invariants as inv
from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.task import Call, Task


def reference(A: torch.Tensor) -> torch.Tensor:
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U @ torch.diag(S) @ Vh


def fixed_cases(gen):
    f32 = torch.float32
    yield "example", Call(torch.tensor([[3.0, 2.0, 2.0], [2.0, 3.0, -2.0]]))
    yield "1x1", Call(torch.tensor([[-2.0]]))
    yield "zero", Call(torch.zeros(3, 4))
    yield "rank1", Call(inv.gaussian((7, 1), gen, dtype=f32) @ inv.gaussian((1, 5), gen, dtype=f32))
    yield "tall", Call(inv.gaussian((40, 9), gen, dtype=f32))


def random_cases(gen, mode):
    f32 = torch.float32
    yield "64x64", Call(inv.gaussian((64, 64), gen, mode, f32))
    yield "150x90", Call(inv.gaussian((150, 90), gen, mode, f32))
    yield "70x200", Call(inv.gaussian((70, 200), gen, mode, f32))


def perf_cases(gen):
    for n in (64, 256, 1024):
        yield f"n{n}", Call(inv.gaussian((n, n), gen, dtype=torch.float32))


def flops(call, out):
    m, n = call.args[0].shape
    return inv.svd_flops(m, n) + 2.0 * m * n * min(m, n)


TASK = Task(
    id="Fusion/fused_svd_reconstruct",
    entry="fused_svd_reconstruct",
    signature="fused_svd_reconstruct(A: Tensor) -> Tensor",
    description="Computes the reduced singular value decomposition A = U·diag(S)·Vh of a real matrix A of shape "
                "(m, n) (U (m, k), S (k,), Vh (k, n), k = min(m, n)) and returns the reconstruction "
                "U·diag(S)·Vh, of shape (m, n) in A's dtype.",
    math=r"A = U \operatorname{diag}(S) V^{\mathsf H},\qquad \hat A = U \operatorname{diag}(S) V^{\mathsf H}",
    difficulty=5,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(
        dtypes="A float32 (m, n); output float32 (m, n)",
        tolerance=inv.shown_tolerance(torch.float32, 4.0),
        notes="The reconstruction is unique and compared elementwise: |Â − ref| ≤ 4·tol·(RMS(ref) + |ref|), with "
              f"{inv.tolerance_text()} (the line above is n = 256).",
    ),
    flops=flops,
    check=inv.close_check(4.0),
)
