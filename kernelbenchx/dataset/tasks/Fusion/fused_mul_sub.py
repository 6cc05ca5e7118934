"""Fusion/fused_mul_sub: input × other_mul − alpha × other_sub, elementwise with broadcasting."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, other_mul, other_sub, alpha=1) -> torch.Tensor:
    return torch.sub(torch.mul(input, other_mul), other_sub, alpha=alpha)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17), torch.zeros(17), torch.zeros(17))
    yield "example", Call(torch.tensor([2.0, 3.0, 4.0]), torch.tensor([0.5, 1.5, 2.0]),
                          torch.tensor([1.0, 2.0, 3.0]), alpha=2)
    yield "scalars", Call(sample((33, 65), gen), 2, 1)
    yield "float_scalars", Call(sample((1001,), gen), -0.75, 3.5, alpha=-1.5)
    yield "broadcast_rows", Call(sample((31, 64), gen), sample((64,), gen), sample((31, 1), gen), alpha=0.5)
    yield "tensor_mul_scalar_sub", Call(sample((5, 7, 9), gen), sample((5, 7, 9), gen), 0.25, alpha=4)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), sample((2, 1, 5), gen), sample((3, 2, 1, 1), gen),
                               alpha=-2)
    # rank 5, all three operands broadcast (other_sub of rank 4); input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen),
                               sample((4, 1, 1, 5), gen), alpha=0.5)
    yield "specials", Call(torch.tensor([float("inf"), float("-inf"), float("nan"), 1e30, 0.0, 1.0]),
                           torch.tensor([2.0, 0.0, 1.0, 1e10, float("inf"), 1.0]),
                           torch.tensor([1.0, 1.0, 1.0, 0.0, 0.0, float("inf")]))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode), sample((65_537,), gen, mode),
                         sample((65_537,), gen, mode))
    yield "matrix_alpha", Call(sample((129, 257), gen, mode), sample((129, 257), gen, mode),
                               sample((129, 257), gen, mode), alpha=2.5)
    yield "broadcast", Call(sample((4, 31, 127), gen, mode), sample((127,), gen, mode),
                            sample((4, 1, 127), gen, mode), alpha=-0.5)


def perf_cases(gen):
    for name, n in (("n2^16", 1 << 16), ("n2^24", 1 << 24), ("n2^27", 1 << 27)):
        yield name, Call(sample((n,), gen), sample((n,), gen), sample((n,), gen), alpha=2)


TASK = Task(
    id="Fusion/fused_mul_sub",
    entry="fused_mul_sub",
    signature="fused_mul_sub(input: Tensor, other_mul: Tensor | float, other_sub: Tensor | float, "
              "alpha: float = 1) -> Tensor",
    description="Computes input × other_mul − alpha × other_sub elementwise (torch.mul followed by torch.sub with "
                "alpha) and returns a new tensor. other_mul and other_sub may each be a tensor or a Python number; "
                "tensors broadcast together with torch's broadcasting rules, and the output has the broadcast "
                "shape and dtype float32. IEEE semantics apply (inf − inf = NaN, 0 × inf = NaN). "
                "The upstream `out=` argument is dropped.",
    math=r"\mathrm{out}_i = x_i\,m_i - \alpha\,s_i",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, and other_mul/other_sub when tensors, float32; output float32 of the "
                             "broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(3),
    deviations=(
        Deviation(Kind.COVERAGE, "one case passes Python numbers for all three operands",
                  "input is always a tensor (other_mul and other_sub may be numbers); adds broadcasting (rank 4 "
                  "and 5 broadcasts included), IEEE special values and non-default alpha values",
                  "a Triton kernel works on tensors; an all-number call has nothing to launch a kernel on"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements, alpha = 1",
                  "1-D 2^16, 2^24 and 2^27 elements, alpha = 2",
                  "a subset spanning small to largest; alpha ≠ 1 keeps the scaling in the timed work"),
    ),
)
