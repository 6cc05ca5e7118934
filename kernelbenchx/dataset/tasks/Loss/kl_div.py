"""Loss/kl_div: pointwise KL divergence between log-probabilities and a target distribution, then reduced."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, sample
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "batchmean", "sum", "mean")


def reference(input: torch.Tensor, target: torch.Tensor, reduction: str = "batchmean",
              log_target: bool = False) -> torch.Tensor:
    if reduction == "mean":  # spelled out: torch warns that its 'mean' may change meaning in a later release
        return F.kl_div(input, target, reduction="none", log_target=log_target).mean()
    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def bind(input, target, reduction="batchmean", log_target=False):
    return input, target, reduction, log_target


def error_bound(call: Call) -> torch.Tensor:
    """Per element, the log (or exp) and the subtraction carry 2ε relative to the magnitudes they combine:
    e = 2ε·y·(1 + 2|log y| + |x|) (0 where y = 0), or with log_target e = 2ε·eᵗ·(1 + |t|)·(1 + |t| + |x|)."""
    x, y, reduction, log_target = bind(*call.args, **call.kwargs)
    x, y = x.double(), y.double()
    loss = F.kl_div(x, y, reduction="none", log_target=log_target)
    if log_target:
        elem = y.exp() * (1 + y.abs()) * (1 + y.abs() + x.abs())
    else:
        logy = torch.where(y > 0, y.log(), torch.zeros_like(y))
        elem = y.abs() * (1 + 2 * logy.abs() + x.abs())
    elem = 2 * _bounds.EPS32 * (elem + loss.abs())
    if reduction == "batchmean":
        return _bounds.loss_bound(loss, elem, "mean", divisor=float(x.shape[0]) if x.dim() else 1.0)
    return _bounds.loss_bound(loss, elem, reduction)


def log_probs(shape, gen, mode="standard"):
    return torch.log_softmax(sample(shape, gen, mode), dim=-1)


def probs(shape, gen, mode="standard"):
    return torch.softmax(sample(shape, gen, mode), dim=-1)


def fixed_cases(gen):
    yield "example", Call(log_probs((2, 5), gen), probs((2, 5), gen))
    yield "same_distribution", Call(torch.full((3, 7), 1 / 7).log(), torch.full((3, 7), 1 / 7), "sum")
    zero_target = torch.tensor([[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0]])
    yield "zero_target_none", Call(log_probs((2, 4), gen), zero_target, "none")
    yield "zero_target_batchmean", Call(log_probs((2, 4), gen), zero_target)
    yield "log_target_sum", Call(log_probs((5, 9), gen), log_probs((5, 9), gen), "sum", True)
    yield "log_target_none", Call(log_probs((4, 6), gen), log_probs((4, 6), gen), reduction="none", log_target=True)
    yield "mean_over_elements", Call(log_probs((6, 10), gen), probs((6, 10), gen), "mean")
    yield "3d_batchmean", Call(log_probs((3, 4, 8), gen), probs((3, 4, 8), gen))
    yield "1d_batchmean", Call(log_probs((11,), gen), probs((11,), gen))


def random_cases(gen, mode):
    # every reduction with both target forms across the four cases, rotated by the seed
    shift = int(torch.randint(4, (), generator=gen))
    reds = [REDUCTIONS[(i + shift) % 4] for i in range(4)]
    log_t = bool(torch.randint(2, (), generator=gen))
    yield "wide", Call(log_probs((256, 1024), gen, mode), probs((256, 1024), gen, mode), reds[0], False)
    yield "log_target", Call(log_probs((129, 257), gen, mode), log_probs((129, 257), gen, mode), reds[1], True)
    yield "batch3d", Call(log_probs((4, 31, 127), gen, mode), probs((4, 31, 127), gen, mode), reds[2], log_t)
    target = log_probs((65, 33), gen, mode)
    yield "near_target", Call(target + 1e-3 * sample((65, 33), gen), target if not log_t else target.exp(),
                              reds[3], not log_t)


def perf_cases(gen):
    # upstream: (256 … 8192) × 1024, reduction='batchmean'
    yield "256x1024", Call(log_probs((256, 1024), gen), probs((256, 1024), gen))
    yield "2048x1024", Call(log_probs((2048, 1024), gen), probs((2048, 1024), gen))
    yield "8192x1024", Call(log_probs((8192, 1024), gen), probs((8192, 1024), gen))


TASK = Task(
    id="Loss/kl_div",
    entry="kl_div",
    signature="kl_div(input: Tensor, target: Tensor, reduction: str = 'batchmean', log_target: bool = False) -> Tensor",
    description="Kullback-Leibler divergence loss. `input` holds log-probabilities and `target` has the same shape. "
                "Pointwise, with log_target=False: L = target·(log(target) − input), where target·log(target) is "
                "taken as 0 when target == 0 (so zero-probability targets contribute exactly 0); with "
                "log_target=True the target is given in log space: L = exp(target)·(target − input). "
                "reduction='none' returns L (input's shape); 'sum' returns ΣL; 'mean' returns ΣL divided by the "
                "number of elements; 'batchmean' (the default here) returns ΣL divided by input.shape[0] (the "
                "batch size; for a 1-D input that is its length). Reductions give 0-d tensors; output dtype = "
                "input dtype.",
    math=r"L_i = y_i(\log y_i - x_i),\quad \text{batchmean} = \frac{1}{B}\sum_i L_i",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and target float32, same shape; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with e = 2ε·(y·(1 + 2|log y| + |x|) + |L|) per element (log_target: "
                            "2ε·(eᵗ·(1 + |t|)·(1 + |t| + |x|) + |L|)), 'batchmean' dividing by the batch size, "
                            + _bounds.LOSS_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the reduced loss (see the contract) plus rtol 1e-5",
                  "a fixed atol does not grow with the reduction length as fp32 rounding does, and pointwise "
                  "terms y·(log y − x) cancel when input ≈ log target; the bound admits every summation order "
                  "and rejects fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "2-D batchmean and log_target cases", "adds every reduction with both target "
                  "forms, zero-probability targets, 1-D and 3-D inputs, inputs close to the target",
                  "the same semantics; near-equal distributions exercise the cancellation"),
        Deviation(Kind.PERF, "6 sizes, (256 … 8192) × 1024", "256, 2048 and 8192 rows of 1024",
                  "a subset spanning upstream's range"),
    ),
    flops=input_flops(4),
)
