"""Loss/binary_cross_entropy: BCE between probabilities and (soft) labels, with log clamped at -100."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, randbool, sample, uniform


def reference(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
              reduction: str = "mean") -> torch.Tensor:
    return F.binary_cross_entropy(input, target, weight=weight, reduction=reduction)


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


def random_cases(gen, mode):
    yield "vector", Call(probs((65_537,), gen, mode), labels((65_537,), gen))
    yield "matrix_soft_sum", Call(probs((129, 257), gen, mode), uniform((129, 257), gen), reduction="sum")
    yield "batch_weight_none", Call(probs((4, 31, 127), gen, mode), labels((4, 31, 127), gen),
                                    uniform((31, 1), gen, 0.5, 2.0), "none")


def perf_cases(gen):
    n = 1 << 16
    yield "n2^16", Call(probs((n,), gen), labels((n,), gen))
    n = 1 << 23
    yield "n2^23", Call(probs((n,), gen), labels((n,), gen))
    n = 1 << 26
    yield "n2^26", Call(probs((n,), gen), uniform((n,), gen))
    yield "n2^26_weight_none", Call(probs((n // 1024, 1024), gen), labels((n // 1024, 1024), gen),
                                    uniform((1024,), gen, 0.5, 2.0), "none")


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
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="log(1 − x) may be computed as log1p(−x); summation order is free."),
    flops=input_flops(8),
)
