"""Loss/binary_cross_entropy: BCE between probabilities and (soft) labels, with log clamped at -100."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randbool, sample, uniform
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "mean", "sum")


def reference(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
              reduction: str = "mean") -> torch.Tensor:
    return F.binary_cross_entropy(input, target, weight=weight, reduction=reduction)


def bind(input, target, weight=None, reduction="mean"):
    return input, target, weight, reduction


def error_bound(call: Call) -> torch.Tensor:
    """Per element: the two clamped logs carry ε·(1 + |log|) each (log(1 − x) may round 1 − x first), the
    products and the sum ε·ℓ: e = 2ε·(2|ℓ| + |w|)."""
    x, y, w, reduction = bind(*call.args, **call.kwargs)
    w64 = None if w is None else w.double()
    loss = F.binary_cross_entropy(x.double(), y.double(), weight=w64, reduction="none")
    weight = torch.ones_like(loss) if w is None else torch.broadcast_to(w64.abs(), loss.shape)
    return _bounds.loss_bound(loss, 2 * _bounds.EPS32 * (2 * loss.abs() + weight), reduction)


def probs(shape, gen, mode="standard"):
    """sigmoid(2·N(0,1)); outliers saturate to exactly 1.0 in float32, which exercises the log clamp."""
    return torch.sigmoid(sample(shape, gen, mode) * 2)


def labels(shape, gen):
    return randbool(shape, gen).float()


def fixed_cases(gen):
    edge_x = torch.tensor([0.0, 0.0, 1.0, 1.0, 0.5, 1e-30, 1.0 - 2.0 ** -24, 0.3, 1e-8])
    edge_y = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 0.7, 0.0])
    yield "edges_none", Call(edge_x, edge_y, reduction="none")
    yield "edges_mean", Call(edge_x, edge_y)
    yield "hard_labels", Call(probs((33, 65), gen), labels((33, 65), gen))
    yield "soft_labels_sum", Call(probs((7, 9, 5), gen), uniform((7, 9, 5), gen), reduction="sum")
    yield "class_weight_none", Call(probs((17, 6), gen), labels((17, 6), gen), uniform((6,), gen, 0.5, 2.0), "none")
    yield "full_weight_mean", Call(probs((5, 11), gen), labels((5, 11), gen), uniform((5, 11), gen))
    yield "empty_mean_nan", Call(torch.empty(0), torch.empty(0))


def random_cases(gen, mode):
    yield "vector", Call(probs((65_537,), gen, mode), labels((65_537,), gen))
    yield "matrix_soft_sum", Call(probs((129, 257), gen, mode), uniform((129, 257), gen), reduction="sum")
    yield "batch_weight_none", Call(probs((4, 31, 127), gen, mode), labels((4, 31, 127), gen),
                                    uniform((31, 1), gen, 0.5, 2.0), "none")
    yield "weighted_mean", Call(probs((33, 1001), gen, mode), uniform((33, 1001), gen),
                                uniform((1001,), gen, 0.0, 2.0))


def perf_cases(gen):
    # upstream: 1-D pairs of 2^12 … 2^23 elements, no weight, reduction='mean'
    for k in (16, 20, 23):
        n = 1 << k
        yield f"n2^{k}", Call(probs((n,), gen), labels((n,), gen))


TASK = Task(
    id="Loss/binary_cross_entropy",
    entry="binary_cross_entropy",
    signature="binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, "
              "reduction: str = 'mean') -> Tensor",
    description="Binary cross entropy between probabilities `input` (values in [0, 1]) and targets `target` (same "
                "shape, values in [0, 1]; hard 0/1 labels or soft labels). Elementwise "
                "ℓ = −w·(y·max(log x, −100) + (1 − y)·max(log(1 − x), −100)): each log is clamped at −100, so "
                "x = 0 or x = 1 give finite losses (100 when the label disagrees, 0 when it agrees). `weight`, when "
                "given, broadcasts against the input (e.g. one weight per column) and multiplies each element's "
                "loss. reduction='mean' returns the plain mean of the (weighted) elementwise losses over all "
                "elements, 'sum' their sum (0-d tensors), 'none' the elementwise losses with the input's shape. "
                "Output dtype = input dtype.",
    math=r"\ell_i = -w_i\left[y_i \log x_i + (1-y_i)\log(1-x_i)\right],\ \log \text{ clamped at } -100",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, target (and weight) float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with e = 2ε·(2|ℓ| + |w|) per element (w = 1 without weight), " + _bounds.LOSS_TEXT,
                      notes="log(1 − x) may be computed as log1p(−x); summation order is free (atomics, split "
                            "reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the reduced loss (see the contract) plus rtol 1e-5",
                  "a fixed atol does not grow with the reduction length and the losses' magnitude as fp32 "
                  "rounding does; the bound admits every summation order and rejects fp16/bf16 accumulation "
                  "(tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "probabilities against hard labels", "adds probabilities of exactly 0 and 1 "
                  "(the −100 clamp), soft labels, broadcast and full weights, empty inputs",
                  "the same semantics at their edges"),
        Deviation(Kind.PERF, "12 sizes, 2^12 … 2^23 elements", "2^16, 2^20 and 2^23 elements",
                  "a subset spanning upstream's range"),
    ),
    flops=input_flops(8),
)
