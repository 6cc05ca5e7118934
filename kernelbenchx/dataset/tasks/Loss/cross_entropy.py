"""Loss/cross_entropy: softmax cross entropy of logits against class indices, with class weights and ignore_index."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randbool, randint, sample, uniform


def reference(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
              ignore_index: int = -100, reduction: str = "mean") -> torch.Tensor:
    return F.cross_entropy(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def targets(shape, classes, gen, ignore_index=-100, p_ignore=0.0):
    t = randint(shape, gen, 0, classes)
    if p_ignore:
        t = torch.where(randbool(shape, gen, p_ignore), torch.full_like(t, ignore_index), t)
    return t


def fixed_cases(gen):
    yield "basic", Call(sample((3, 5), gen), torch.tensor([1, 0, 4]))
    yield "unbatched", Call(sample((7,), gen), torch.tensor(2))
    yield "large_logits", Call(sample((4, 6), gen) * 100, torch.tensor([0, 5, 2, 3]), reduction="none")
    yield "weighted_mean", Call(sample((9, 4), gen), targets((9,), 4, gen), uniform((4,), gen, 0.2, 3.0))
    yield "ignored_default", Call(sample((6, 5), gen), torch.tensor([1, -100, 3, -100, 0, 4]), reduction="none")
    yield "ignore_valid_class_weighted", Call(sample((10, 4), gen), targets((10,), 4, gen),
                                              uniform((4,), gen, 0.5, 2.0), 3)
    yield "all_ignored_mean_is_nan", Call(sample((3, 5), gen), torch.full((3,), -100))
    yield "all_ignored_sum", Call(sample((3, 5), gen), torch.full((3,), 7), ignore_index=7, reduction="sum")
    yield "spatial", Call(sample((2, 4, 3, 5), gen), targets((2, 3, 5), 4, gen, p_ignore=0.2))
    yield "spatial_weighted_none", Call(sample((2, 3, 7), gen), targets((2, 7), 3, gen), uniform((3,), gen),
                                        reduction="none")


def random_cases(gen, mode):
    yield "rows", Call(sample((256, 1000), gen, mode) * 2, targets((256,), 1000, gen, p_ignore=0.05))
    yield "weighted_sum", Call(sample((1023, 37), gen, mode), targets((1023,), 37, gen),
                               uniform((37,), gen, 0.5, 2.0), reduction="sum")
    yield "spatial_weighted", Call(sample((3, 19, 33, 31), gen, mode), targets((3, 33, 31), 19, gen, 255, 0.1),
                                   uniform((19,), gen, 0.5, 2.0), 255)
    yield "none", Call(sample((129, 511), gen, mode), targets((129,), 511, gen, p_ignore=0.1), reduction="none")


def perf_cases(gen):
    yield "256x1000", Call(sample((256, 1000), gen), targets((256,), 1000, gen))
    yield "32768x1000_weighted", Call(sample((32768, 1000), gen), targets((32768,), 1000, gen),
                                      uniform((1000,), gen, 0.5, 2.0))
    yield "4096x32000", Call(sample((4096, 32000), gen), targets((4096,), 32000, gen, p_ignore=0.05))
    yield "8x19x512x512_none", Call(sample((8, 19, 512, 512), gen), targets((8, 512, 512), 19, gen),
                                    reduction="none")


def flops(call, out):
    return 4.0 * call.args[0].numel()


TASK = Task(
    id="Loss/cross_entropy",
    entry="cross_entropy",
    signature="cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100, "
              "reduction: str = 'mean') -> Tensor",
    description="Cross entropy between unnormalized logits and class indices. `input` is (N, C), (C,) (one sample, "
                "with a 0-d target) or (N, C, d1, ..., dk) (classes on dimension 1, e.g. per-pixel); `target` is "
                "int64 with the input's shape minus the class dimension, values in [0, C) or equal to "
                "`ignore_index`. For each sample (and spatial position) ℓ = w[y]·(logsumexp_c x_c − x_y), where w "
                "is the optional per-class `weight` of shape (C,) (all ones when None). Positions whose target "
                "equals ignore_index contribute 0 and are excluded from the mean; ignore_index may also be a valid "
                "class id. reduction='none' returns ℓ with the target's shape; 'sum' returns Σℓ; 'mean' returns "
                "Σℓ / Σ w[y] over the non-ignored positions (NaN when every position is ignored). The logsumexp "
                "must be numerically stable (logits can be large). Output dtype = input dtype. (Class-probability "
                "targets and label smoothing are not part of this task.)",
    math=r"\ell_n = -w_{y_n}\log\frac{e^{x_{n,y_n}}}{\sum_c e^{x_{n,c}}},\quad "
         r"\ell = \frac{\sum_n \ell_n}{\sum_n w_{y_n}}\ (\text{mean})",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input (and weight) float32; target int64; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=flops,
)
