"""Loss/smooth_l1_loss: Huber-like loss, quadratic below beta and linear above, reduced by mean or sum."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample, uniform
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "mean", "sum")


def reference(input: torch.Tensor, target: torch.Tensor, beta: float = 1.0, reduction: str = "mean") -> torch.Tensor:
    return F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)


def bind(input, target, beta=1.0, reduction="mean"):
    return input, target, beta, reduction


def error_bound(call: Call) -> torch.Tensor:
    x, y, beta, reduction = bind(*call.args, **call.kwargs)
    d = (x.double() - y.double()).abs()
    loss = F.smooth_l1_loss(x.double(), y.double(), reduction="none", beta=beta)
    return _bounds.loss_bound(loss, 2 * _bounds.EPS32 * (loss + d), reduction)


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
    yield "empty_mean_nan", Call(torch.empty(0), torch.empty(0))
    yield "inf_none", Call(torch.tensor([1.0, float("inf"), -2.0]), torch.tensor([0.5, 0.0, float("-inf")]),
                           reduction="none")


def random_cases(gen, mode):
    beta = float(uniform((), gen, 0.1, 3.0))
    yield "vector", Call(*pair((65_537,), gen, mode), beta)
    yield "matrix_sum", Call(*pair((129, 257), gen, mode), 0.3, "sum")
    yield "batch_none", Call(*pair((4, 31, 127), gen, mode), beta=beta, reduction="none")
    yield "beta_zero_sum", Call(*pair((33, 1001), gen, mode), 0.0, "sum")


def perf_cases(gen):
    # upstream: 1-D pairs of 2^12 … 2^24 elements, default beta and reduction
    yield "n2^16", Call(*pair((1 << 16,), gen))
    yield "n2^20", Call(*pair((1 << 20,), gen))
    yield "n2^24", Call(*pair((1 << 24,), gen))


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
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with e = 2ε·(ℓ + d) per element, " + _bounds.LOSS_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the reduced loss (see the contract) plus rtol 1e-5",
                  "a fixed atol does not grow with the reduction length and the losses' magnitude as fp32 "
                  "rounding does; the bound admits every summation order and rejects fp16/bf16 accumulation "
                  "(tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "N(0, 1) pairs, beta 1", "adds both sides of the branch point, beta 0 (plain L1), "
                  "random beta, infinities and empty inputs", "the same semantics at their edges"),
        Deviation(Kind.PERF, "13 sizes, 2^12 … 2^24 elements", "2^16, 2^20 and 2^24 elements",
                  "a subset spanning upstream's range"),
    ),
    flops=input_flops(5),
)
