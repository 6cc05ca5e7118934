"""Normalization/spectral_norm_eig: the largest eigenvalue magnitude (spectral radius) of square matrices."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(A: torch.Tensor) -> torch.Tensor:
    eigenvalues, _ = torch.linalg.eig(A)
    return torch.abs(eigenvalues).max(dim=-1).values


def symmetric(shape, gen, mode="standard"):
    a = sample(shape, gen, mode)
    return (a + a.transpose(-1, -2)) / 2


def rotation(angles):
    c, s = torch.cos(angles), torch.sin(angles)
    return torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)


def fixed_cases(gen):
    yield "example_symmetric", Call(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
    yield "example_general", Call(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    yield "rotations", Call(torch.tensor([0.5, 1.0, 2.0]).view(3, 1, 1) * rotation(torch.tensor([0.3, 1.2, 3.0])))
    yield "triangular", Call(torch.triu(sample((4, 5, 5), gen)))
    yield "zero_and_identity", Call(torch.stack([torch.zeros(3, 3), -2.5 * torch.eye(3)]))
    yield "batch_general", Call(sample((6, 9, 9), gen))
    yield "batch_symmetric", Call(symmetric((5, 12, 12), gen))
    yield "nested_batch", Call(sample((2, 3, 4, 4), gen))
    yield "one_by_one", Call(sample((7, 1, 1), gen))
    # a single matrix (0-d output) on the path for n > 64, with a partial last tile and entries beyond fp16's
    # range (up to ~4e5): intermediates must stay float32
    yield "large_values_65", Call(sample((65, 65), gen) * 1e5)


def random_cases(gen, mode):
    yield "small_batch", Call(sample((61, 7, 7), gen, mode))
    yield "symmetric_31", Call(symmetric((16, 31, 31), gen, mode))
    yield "general_129", Call(sample((2, 129, 129), gen, mode) / math.sqrt(129))
    yield "batch_64", Call(sample((8, 64, 64), gen, mode).clamp(-10, 10))


def perf_cases(gen):
    # upstream: one n×n matrix, n = 4 … 128
    yield "4x4", Call(sample((4, 4), gen))
    yield "32x32", Call(sample((32, 32), gen))
    yield "128x128", Call(sample((128, 128), gen))


TASK = Task(
    id="Normalization/spectral_norm_eig",
    entry="spectral_norm_eig",
    signature="spectral_norm_eig(A: Tensor) -> Tensor",
    description="For each square matrix in A of shape (*, n, n) (zero or more batch dimensions), returns the "
                "largest absolute value of its eigenvalues, max |λ| (the spectral radius; it equals the spectral "
                "norm only for normal matrices). Eigenvalues of a real non-symmetric matrix may be complex: use "
                "their modulus. Output float32 of shape (*) (a 0-d tensor for a single matrix). The out= argument "
                "of the original is dropped.",
    math=r"\rho(A) = \max\{|\lambda| : \lambda \text{ eigenvalue of } A\}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="A float32 (*, n, n); output float32 (*)",
                      tolerance=Tolerance(rtol=1e-4, atol=1e-5),
                      notes="Eigenvalues computed in fp32 by different algorithms differ by a few 1e-6 relative "
                            "(more for non-normal matrices), hence rtol 1e-4. Any algorithm is fine (QR "
                            "iteration, Hessenberg + shifts, ...), as long as complex-conjugate pairs are handled."),
    flops=lambda call, out: 10.0 * call.args[0].shape[-1] ** 3 * max(out.numel(), 1),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-4, atol 1e-5",
                  "fp32 eigenvalues from different algorithms (LAPACK's Hessenberg QR, power-type iterations) "
                  "differ by several 1e-6 relative, more for non-normal matrices whose dominant eigenvalue is "
                  "ill-conditioned"),
        Deviation(Kind.COVERAGE, "2×2 and 3×3 matrices, random (16, 32, 32) and (8, 64, 64) batches, single "
                  "32×32 and 64×64 matrices",
                  "adds complex-conjugate dominant pairs (rotations), triangular, zero, scaled identity, symmetric, "
                  "nested batch and 1×1 matrices", "the same semantics at their edges"),
        Deviation(Kind.PERF, "6 single matrices, n = 4 … 128", "single matrices, n = 4, 32, 128",
                  "a subset spanning upstream's range"),
    ),
)
