"""Loss/mse_loss: mean squared error between two tensors, reduced by mean or sum, or kept elementwise."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    return F.mse_loss(input, target, reduction=reduction)


def pair(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "equal", Call(torch.ones(17), torch.ones(17))
    yield "small", Call(torch.tensor([1.0, -2.0, 3.5]), torch.tensor([0.0, 2.0, 3.0]))
    yield "matrix_sum", Call(*pair((33, 65), gen), reduction="sum")
    yield "none", Call(*pair((7, 9, 5), gen), "none")
    yield "inf_target", Call(torch.tensor([1.0, 2.0]), torch.tensor([float("inf"), 0.0]), "none")
    yield "offset", Call(sample((1000,), gen) + 50.0, sample((1000,), gen) + 50.0)


def random_cases(gen, mode):
    yield "vector", Call(*pair((65_537,), gen, mode))
    yield "matrix_sum", Call(*pair((129, 257), gen, mode), reduction="sum")
    yield "batch_none", Call(*pair((4, 31, 127), gen, mode), reduction="none")


def perf_cases(gen):
    yield "n2^16", Call(*pair((1 << 16,), gen))
    yield "n2^23", Call(*pair((1 << 23,), gen))
    yield "n2^26", Call(*pair((1 << 26,), gen))
    yield "n2^26_none", Call(*pair((1 << 26,), gen), reduction="none")


TASK = Task(
    id="Loss/mse_loss",
    entry="mse_loss",
    signature="mse_loss(input: Tensor, target: Tensor, reduction: str = 'mean') -> Tensor",
    description="Squared error (input − target)² for every element of two tensors of the same shape, then reduced: "
                "reduction='mean' gives the mean over all elements and 'sum' the sum (both as a 0-d tensor); "
                "'none' returns the elementwise squared errors with the input's shape. Output dtype = input dtype. "
                "Infinite or NaN differences propagate as in IEEE arithmetic.",
    math=r"\ell = \frac{1}{n}\sum_{i=1}^{n}(x_i - y_i)^2",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and target float32, same shape; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=input_flops(3),
)
