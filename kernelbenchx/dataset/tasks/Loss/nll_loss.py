"""Loss/nll_loss: negative log-likelihood of class indices given log-probabilities, with weights and ignore_index."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randbool, randint, sample, tensor_bytes, uniform
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "mean", "sum")


def reference(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
              ignore_index: int = -100, reduction: str = "mean") -> torch.Tensor:
    return F.nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def bind(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return input, target, weight, ignore_index, reduction


def selected_weights(input, target, weight, ignore_index):
    """w[y] per position (0 where ignored), float64, with the target's shape."""
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    w = torch.ones(input.shape[1 if input.dim() > 1 else 0], dtype=torch.float64) if weight is None \
        else weight.double()
    return torch.where(keep, w[safe], torch.zeros((), dtype=torch.float64))


def error_bound(call: Call) -> torch.Tensor:
    """ℓ = −w[y]·x_y is one rounded product (e = ε·|ℓ|); 'mean' divides Σℓ by Σ w[y], itself a sum."""
    x, t, w, ignore_index, reduction = bind(*call.args, **call.kwargs)
    loss = F.nll_loss(x.double(), t, weight=None if w is None else w.double(), ignore_index=ignore_index,
                      reduction="none")
    ws = selected_weights(x, t, w, ignore_index)
    return _bounds.loss_bound(loss, _bounds.EPS32 * loss.abs(), reduction, divisor=ws.sum(),
                              b_divisor=_bounds.sum_bound(ws))


def log_probs(shape, gen, mode="standard"):
    return torch.log_softmax(sample(shape, gen, mode), dim=1 if len(shape) > 1 else 0)


def targets(shape, classes, gen, ignore_index=-100, p_ignore=0.0):
    t = randint(shape, gen, 0, classes)
    if p_ignore:
        t = torch.where(randbool(shape, gen, p_ignore), torch.full_like(t, ignore_index), t)
    return t


def fixed_cases(gen):
    yield "basic", Call(log_probs((3, 5), gen), torch.tensor([1, 0, 4]))
    yield "arbitrary_scores", Call(sample((4, 6), gen) * 10, torch.tensor([0, 5, 2, 3]), reduction="none")
    yield "unbatched", Call(log_probs((7,), gen), torch.tensor(2))
    yield "weighted_mean", Call(log_probs((9, 4), gen), targets((9,), 4, gen), uniform((4,), gen, 0.2, 3.0))
    yield "ignored_default", Call(log_probs((6, 5), gen), torch.tensor([1, -100, 3, -100, 0, 4]), reduction="none")
    yield "ignore_valid_class_weighted", Call(log_probs((10, 4), gen), targets((10,), 4, gen),
                                              uniform((4,), gen, 0.5, 2.0), 3)
    yield "all_ignored_mean_is_nan", Call(log_probs((3, 5), gen), torch.full((3,), -100))
    yield "all_ignored_sum", Call(log_probs((3, 5), gen), torch.full((3,), 7), ignore_index=7, reduction="sum")
    yield "spatial", Call(log_probs((2, 4, 3, 5), gen), targets((2, 3, 5), 4, gen, p_ignore=0.2))
    yield "spatial_weighted_none", Call(log_probs((2, 3, 7), gen), targets((2, 7), 3, gen), uniform((3,), gen),
                                        reduction="none")
    # weight as every other element of a finite buffer (stride 2): the layout cases relay only the input and
    # target (their base cases have no weight), so this is the one case that reads weight through its stride
    yield "strided_weight_none", Call(log_probs((9, 4), gen), targets((9,), 4, gen),
                                      uniform((8,), gen, 0.2, 3.0)[::2], reduction="none")


def random_cases(gen, mode):
    yield "rows", Call(log_probs((256, 1000), gen, mode), targets((256,), 1000, gen, p_ignore=0.05))
    yield "weighted_sum", Call(log_probs((1023, 37), gen, mode), targets((1023,), 37, gen),
                               uniform((37,), gen, 0.5, 2.0), reduction="sum")
    yield "spatial_weighted", Call(log_probs((3, 19, 33, 31), gen, mode), targets((3, 33, 31), 19, gen, 255, 0.1),
                                   uniform((19,), gen, 0.5, 2.0), 255)
    yield "none", Call(log_probs((129, 511), gen, mode), targets((129,), 511, gen, p_ignore=0.1), reduction="none")


def perf_cases(gen):
    # upstream: (256 … 32768) × 1000 log-probabilities, default arguments
    for n in (256, 4096, 32768):
        yield f"{n}x1000", Call(log_probs((n, 1000), gen), targets((n,), 1000, gen))


def flops(call, out):
    return 2.0 * call.args[1].numel()


def compulsory_bytes(call: Call, out) -> float:
    """Targets, the one selected log-probability per position, the weights, and the output: a kernel never
    needs the rest of `input` (counting all of it would put honest kernels above the roofline)."""
    target = call.args[1]
    weight = call.args[2] if len(call.args) > 2 else call.kwargs.get("weight")
    return (tensor_bytes(target) + target.numel() * call.args[0].element_size() + tensor_bytes(weight)
            + tensor_bytes(out))


TASK = Task(
    id="Loss/nll_loss",
    entry="nll_loss",
    signature="nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100, "
              "reduction: str = 'mean') -> Tensor",
    description="Negative log-likelihood loss. `input` holds log-probabilities (any float scores are accepted and "
                "used as given) of shape (N, C), (C,) (one sample, with a 0-d target) or (N, C, d1, ..., dk) "
                "(classes on dimension 1); `target` is int64 with the input's shape minus the class dimension, "
                "values in [0, C) or equal to `ignore_index`. For each sample (and spatial position) "
                "ℓ = −w[y]·x_y, where w is the optional per-class `weight` of shape (C,) (all ones when None). "
                "Positions whose target equals ignore_index contribute 0 and are excluded from the mean; "
                "ignore_index may also be a valid class id. reduction='none' returns ℓ with the target's shape; "
                "'sum' returns Σℓ; 'mean' returns Σℓ / Σ w[y] over the non-ignored positions (NaN when every "
                "position is ignored). Output dtype = input dtype.",
    math=r"\ell_n = -w_{y_n} x_{n,y_n},\quad \ell = \frac{\sum_n \ell_n}{\sum_n w_{y_n}}\ (\text{mean})",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input (and weight) float32; target int64; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with e = ε·|ℓ| per position and, for 'mean', the divisor Σ w[y] over the "
                            "non-ignored positions, " + _bounds.LOSS_TEXT,
                      notes="Only the selected log-probabilities need to be read. Summation order is free "
                            "(atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the reduced loss and on the sum of weights (see the contract) plus "
                  "rtol 1e-5",
                  "a fixed atol does not grow with the reduction length as fp32 rounding does; the bound admits "
                  "every summation order and rejects fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "(N, C) log-probabilities with default arguments",
                  "adds class weights, ignore_index (default, custom, a valid class, every position ignored), "
                  "unbatched and spatial inputs, every reduction", "the signature promises them"),
        Deviation(Kind.PERF, "8 sizes, (256 … 32768) × 1000", "256, 4096 and 32768 rows of 1000",
                  "a subset spanning upstream's range"),
    ),
    flops=flops,
    bytes=compulsory_bytes,
)
