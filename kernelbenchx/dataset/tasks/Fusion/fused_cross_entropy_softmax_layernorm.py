"""Fusion/fused_cross_entropy_softmax_layernorm: cross-entropy of logits, plus layer-normalized softmax."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.layouts import strided
from kernelbenchx.dataset.task import Call, Task, input_flops, randbool, randint, sample, uniform
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(logits: torch.Tensor, targets: torch.Tensor, normalized_shape, weight=None, ignore_index: int = -100,
              reduction: str = "mean", label_smoothing: float = 0.0, eps: float = 1e-5):
    loss = F.cross_entropy(logits, targets, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)
    probabilities = F.softmax(logits, dim=-1)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return loss, F.layer_norm(probabilities, tuple(normalized_shape), eps=eps)


def bind(logits, targets, normalized_shape, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0,
         eps=1e-5):
    return logits, targets, normalized_shape, weight, ignore_index, reduction, label_smoothing, eps


def error_bound(call: Call):
    """(loss, output): the cross-entropy bound over dim 1, and the layer-norm bound of the softmax over the last
    dim, whose probabilities carry the relative error of their log-sum-exp (p·δlp) plus their exp's."""
    logits, targets, shape, weight, ignore_index, reduction, smoothing, eps = bind(*call.args, **call.kwargs)
    lp, dlp = sb.log_softmax_err(logits, 1)
    loss = sb.cross_entropy_bound(lp, dlp, targets, weight, ignore_index, reduction, smoothing)
    lq, dlq = sb.log_softmax_err(logits, -1)
    p = lq.exp()
    dp = p * (dlq + sb.K_FN * sb.E32)
    k = 1 if isinstance(shape, int) else len(shape)
    dims = tuple(range(logits.dim() - k, logits.dim()))
    return loss, sb.normalized_bound(p, dp, dims, eps)


def labels(shape, c, gen, ignored=0.0):
    y = randint(shape, gen, 0, c)
    return torch.where(randbool(shape, gen, ignored), torch.full_like(y, -100), y) if ignored else y


def fixed_cases(gen):
    yield "example", Call(sample((4, 5), gen), torch.tensor([1, 0, 3, 2]), 5)
    yield "weighted_smoothing_none", Call(sample((8, 6), gen), labels((8,), 6, gen), [6], uniform((6,), gen, 0.2, 2.0),
                                          reduction="none", label_smoothing=0.2)
    yield "ignored_sum_eps", Call(sample((9, 4), gen), torch.tensor([2, 0, -100, 1, 3, 2, -100, 0, 1]), 4,
                                  reduction="sum", eps=1e-3)
    yield "custom_ignore_index", Call(sample((6, 3), gen), torch.tensor([2, 0, 2, 1, 1, 2]), 3, None, 2)
    yield "probability_targets", Call(sample((6, 5), gen), torch.softmax(sample((6, 5), gen), 1), 5,
                                      label_smoothing=0.1)
    yield "classes_dim1_softmax_last", Call(sample((2, 4, 6), gen), labels((2, 6), 4, gen), [4, 6],
                                            reduction="none")
    yield "peaked_and_uniform_rows", Call(torch.tensor([[30.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0],
                                                        [0.0, -40.0, 40.0, 0.0]]), torch.tensor([0, 3, 2]), 4)
    masked = sample((3, 600), gen)
    masked[:, :300] = float("-inf")  # the first class blocks of every row are masked out
    yield "masked_first_block_none", Call(masked, torch.tensor([300, 457, 599]), 600, reduction="none")
    # 'mean' divides by Σ w[y] over non-ignored targets only: ignored rows (and rows past the end) weigh 0
    yield "weighted_ignored_mean", Call(sample((10, 7), gen), torch.tensor([3, -100, 0, 6, -100, 2, 1, 5, -100, 4]),
                                        7, uniform((7,), gen, 0.2, 2.0))
    # Classes on dim 1 of (N, C, S) with 90 rows (n, s), not a multiple of a power-of-two row block: probability
    # targets read through their own strides (every other element of a wider buffer), unweighted, smoothed
    yield "classes_dim1_probability_strided_mean", Call(sample((3, 5, 30), gen),
                                                        strided(torch.softmax(sample((3, 5, 30), gen), 1)), 30,
                                                        label_smoothing=0.1)
    yield "classes_dim1_weighted_ignored_smoothing_mean", Call(sample((2, 6, 45), gen),
                                                               labels((2, 45), 6, gen, 0.2), 45,
                                                               uniform((6,), gen, 0.2, 2.0), label_smoothing=0.2)
    # classes on dim 1 with every logit shifted by -1e4: a running max that starts at 0 instead of -inf
    # underflows Σ exp to 0
    yield "classes_dim1_shifted_none", Call(sample((2, 4, 6), gen) - 1e4, labels((2, 6), 4, gen), 6,
                                            reduction="none")


def random_cases(gen, mode):
    yield "n1000_c128_mean", Call(sample((1000, 128), gen, mode), labels((1000,), 128, gen), 128)
    yield "n300_c1000_weighted_smoothing_none", Call(sample((300, 1000), gen, mode), labels((300,), 1000, gen, 0.1),
                                                     [1000], uniform((1000,), gen, 0.2, 2.0), -100, "none", 0.1)
    yield "classes_dim1_sum", Call(sample((64, 10, 50), gen, mode), labels((64, 50), 10, gen), 50, reduction="sum")


def perf_cases(gen):
    for n in (4096, 65536, 524288):
        yield f"n{n}_c1024", Call(sample((n, 1024), gen), labels((n,), 1024, gen), 1024)
    yield "n32768_c4096_smoothing", Call(sample((32768, 4096), gen), labels((32768,), 4096, gen), 4096,
                                         label_smoothing=0.1)


TASK = Task(
    id="Fusion/fused_cross_entropy_softmax_layernorm",
    entry="fused_cross_entropy_softmax_layernorm",
    signature="fused_cross_entropy_softmax_layernorm(logits: Tensor, targets: Tensor, "
              "normalized_shape: int | list[int], weight: Tensor | None = None, ignore_index: int = -100, "
              "reduction: str = 'mean', label_smoothing: float = 0.0, eps: float = 1e-5) -> tuple[Tensor, Tensor]",
    description="Returns (loss, output). loss is torch's cross_entropy(logits, targets, weight, ignore_index, "
                "reduction, label_smoothing) with classes along dim 1 of logits (N, C) or (N, C, d1, …): with "
                "lp = log_softmax(logits, dim=1), w = weight (C,) or ones, ε = label_smoothing; for int64 class "
                "targets (shape (N, d1, …)) per element nll = −w[y]·lp[y], s = −Σ_c w[c]·lp[c] (both 0 where "
                "y == ignore_index) and loss = (1 − ε)·nll + (ε/C)·s (s left out when ε = 0, so −inf logits of "
                "other classes give a finite loss; all logits may be shifted far below 0, e.g. by −1e4); "
                "reduction 'none' gives per-element losses, "
                "'sum' their sum, 'mean' their sum / Σ w[y] over non-ignored elements. For float32 probability "
                "targets (logits' shape): t' = (1 − ε)·t + ε/C, per element −Σ_c w[c]·t'[c]·lp[c], and 'mean' "
                "divides by N·d1·… . output is layer_norm(softmax(logits, dim=-1)) without affine parameters: "
                "the softmax is over the LAST dim, then each group of trailing dims given by normalized_shape (int "
                "or list) is shifted by its mean and divided by sqrt(biased variance + eps) (a constant group "
                "gives 0). Both outputs float32; output has logits' shape. The upstream `out=` argument is "
                "dropped.",
    math=r"L = \mathrm{CE}(z, y),\quad p = \mathrm{softmax}(z),\quad o = \frac{p - \mu}{\sqrt{\sigma^2 + \epsilon}}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="logits float32; targets int64 class indices or float32 probabilities; weight float32 "
                             "(C,) or None; loss and output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="for loss, " + sb.LOSS_TEXT + "; for output, " + sb.NORM_TEXT + ", with m the "
                            "softmax probabilities p and δm = p·(δlp + 4ε)",
                      notes="Use the max-subtracted (stable) softmax; summation order is free (split or atomic "
                            "reductions are fine)."),
    error_bound=error_bound,
    layout_case="classes_dim1_softmax_last",
    flops=input_flops(14),
    choices={"reduction": ("none", "mean", "sum")},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "error bounds propagated through the "
                  "log-sum-exp and the reduction (loss) and through the softmax and layer norm (output), with "
                  "rtol 1e-5", "a fixed atol ignores the class count, the reduction size and how sharply the "
                  "layer norm of near-uniform probabilities amplifies their rounding; the bounds follow them"),
        Deviation(Kind.PERF, "12 sizes, (N, 1024) logits with class targets, N = 256 … 524288",
                  "N = 4096, 65536 and 524288, plus (32768, 4096) with label smoothing",
                  "three of upstream's sizes, its largest included, plus a wider class dim with smoothing, which "
                  "upstream never times"),
    ),
)
