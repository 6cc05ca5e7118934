"""Loss/mse_loss: mean squared error between two tensors, reduced by mean or sum, or kept elementwise."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "mean", "sum")


def reference(input: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    return F.mse_loss(input, target, reduction=reduction)


def bind(input, target, reduction="mean"):
    return input, target, reduction


def error_bound(call: Call) -> torch.Tensor:
    x, y, reduction = bind(*call.args, **call.kwargs)
    loss = (x.double() - y.double()).pow(2)
    return _bounds.loss_bound(loss, 2 * _bounds.EPS32 * loss, reduction)


def pair(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode)


def fixed_cases(gen):
    yield "equal", Call(torch.ones(17), torch.ones(17))
    yield "small", Call(torch.tensor([1.0, -2.0, 3.5]), torch.tensor([0.0, 2.0, 3.0]))
    yield "matrix_sum", Call(*pair((33, 65), gen), reduction="sum")
    yield "none", Call(*pair((7, 9, 5), gen), "none")
    yield "inf_target", Call(torch.tensor([1.0, 2.0]), torch.tensor([float("inf"), 0.0]), "none")
    yield "offset", Call(sample((1000,), gen) + 50.0, sample((1000,), gen) + 50.0)
    yield "empty_mean_nan", Call(torch.empty(0), torch.empty(0))
    yield "empty_sum", Call(torch.empty(2, 0), torch.empty(2, 0), "sum")
    yield "single", Call(torch.tensor([[3.0]]), torch.tensor([[-1.5]]))
    # contiguous prefixes of longer buffers: finite values follow both views in memory
    yield "none_buffer_prefix", Call(*(t[:1000] for t in pair((1100,), gen)), "none")


def random_cases(gen, mode):
    yield "vector", Call(*pair((65_537,), gen, mode))
    yield "matrix_sum", Call(*pair((129, 257), gen, mode), reduction="sum")
    yield "batch_none", Call(*pair((4, 31, 127), gen, mode), reduction="none")
    yield "odd_mean", Call(*pair((3, 1001), gen, mode))


def perf_cases(gen):
    # upstream: 1-D pairs of 2^12 … 2^23 elements, reduction='mean'
    yield "n2^16", Call(*pair((1 << 16,), gen))
    yield "n2^20", Call(*pair((1 << 20,), gen))
    yield "n2^23", Call(*pair((1 << 23,), gen))


TASK = Task(
    id="Loss/mse_loss",
    entry="mse_loss",
    signature="mse_loss(input: Tensor, target: Tensor, reduction: str = 'mean') -> Tensor",
    description="Squared error (input − target)² for every element of two tensors of the same shape, then reduced: "
                "reduction='mean' gives the mean over all elements and 'sum' the sum (both as a 0-d tensor); "
                "'none' returns the elementwise squared errors with the input's shape. Output dtype = input dtype. "
                "Infinite or NaN differences propagate as in IEEE arithmetic. Empty inputs are valid: their mean is "
                "NaN (0/0) and their sum 0.",
    math=r"\ell = \frac{1}{n}\sum_{i=1}^{n}(x_i - y_i)^2",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and target float32, same shape; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with e = 2ε·ℓ per element (ℓ = (x − y)²), " + _bounds.LOSS_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the reduced loss (see the contract) plus rtol 1e-5",
                  "a fixed atol does not grow with the reduction length and the losses' magnitude as fp32 "
                  "rounding does; the bound admits every summation order and rejects fp16/bf16 accumulation "
                  "(tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "same-shape N(0, 1) pairs", "adds ±inf targets, a large common offset, empty "
                  "and size-1 inputs", "the same semantics at their edges (an empty mean is 0/0 = NaN)"),
        Deviation(Kind.COVERAGE, "inputs that own their whole storage",
                  "adds reduction='none' on contiguous 1000-element prefixes of 1100-element buffers",
                  "a kernel that stores one element past the end (a bound off by one) writes a finite value into the output's guard band, which a NaN read from a fresh input's poison band would not disturb"),
        Deviation(Kind.PERF, "12 sizes, 2^12 … 2^23 elements", "2^16, 2^20 and 2^23 elements",
                  "a subset spanning upstream's range"),
    ),
    flops=input_flops(3),
)
