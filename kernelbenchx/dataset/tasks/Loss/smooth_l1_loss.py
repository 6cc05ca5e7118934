"""Loss/smooth_l1_loss: Huber-like loss, quadratic below beta and linear above, reduced by mean or sum."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, target: torch.Tensor, beta: float = 1.0, reduction: str = "mean") -> torch.Tensor:
    return F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)


def pair(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    diffs = torch.tensor([-3.0, -1.0, -0.999, -0.5, 0.0, 0.5, 0.999, 1.0, 1.001, 3.0])
    yield "equal", Call(torch.ones(17), torch.ones(17))
    yield "branches_none", Call(diffs, torch.zeros(10), reduction="none")
    yield "beta_0.5_none", Call(diffs, torch.zeros(10), 0.5, "none")
    yield "beta_zero_is_l1", Call(*pair((9, 13), gen), beta=0.0, reduction="none")
    yield "beta_zero_mean", Call(*pair((9, 13), gen), 0.0)
    yield "wide_beta_sum", Call(*pair((33, 65), gen), beta=4.0, reduction="sum")
    yield "mean", Call(*pair((7, 9, 5), gen))


def random_cases(gen, mode):
    yield "vector", Call(*pair((65_537,), gen, mode))
    yield "matrix_sum_beta_0.3", Call(*pair((129, 257), gen, mode), 0.3, "sum")
    yield "batch_none_beta_2", Call(*pair((4, 31, 127), gen, mode), beta=2.0, reduction="none")


def perf_cases(gen):
    yield "n2^16", Call(*pair((1 << 16,), gen))
    yield "n2^24", Call(*pair((1 << 24,), gen))
    yield "n2^26", Call(*pair((1 << 26,), gen))
    yield "n2^26_none", Call(*pair((1 << 26,), gen), reduction="none")


TASK = Task(
    id="Loss/smooth_l1_loss",
    entry="smooth_l1_loss",
    signature="smooth_l1_loss(input: Tensor, target: Tensor, beta: float = 1.0, reduction: str = 'mean') -> Tensor",
    description="Smooth L1 loss between two tensors of the same shape. With d = |input − target| elementwise, the "
                "loss is 0.5·d²/beta where d < beta and d − 0.5·beta otherwise (beta ≥ 0; beta = 0 means plain "
                "L1 loss d, with no division by zero). reduction='mean' returns the mean over all elements and "
                "'sum' the sum (0-d tensors); 'none' returns the elementwise losses with the input's shape. Output "
                "dtype = input dtype.",
    math=r"\ell_i = \begin{cases} 0.5\,d_i^2/\beta & d_i < \beta \\ d_i - 0.5\,\beta & \text{otherwise}\end{cases},"
         r"\ d_i = |x_i - y_i|",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and target float32, same shape; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=input_flops(5),
)
