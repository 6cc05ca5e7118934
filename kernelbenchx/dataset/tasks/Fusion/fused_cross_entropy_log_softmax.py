"""Fusion/fused_cross_entropy_log_softmax: log_softmax over `dim`, then cross-entropy over the class dim 1."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randbool, randint, sample, uniform
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(input: torch.Tensor, target: torch.Tensor, dim: int = 1, weight=None, ignore_index: int = -100,
              reduction: str = "mean", label_smoothing: float = 0.0) -> torch.Tensor:
    log_probs = F.log_softmax(input, dim=dim)
    return F.cross_entropy(log_probs, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)


def bind(input, target, dim=1, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return input, target, dim, weight, ignore_index, reduction, label_smoothing


def error_bound(call: Call) -> torch.Tensor:
    """The log-sum-exp bound of both log_softmax applications (log_softmax_err), then cross_entropy_bound."""
    x, target, dim, weight, ignore_index, reduction, smoothing = bind(*call.args, **call.kwargs)
    lp1, dlp1 = sb.log_softmax_err(x, dim)
    lp, dlp = sb.log_softmax_err(lp1, 1, dlp1)
    return sb.cross_entropy_bound(lp, dlp, target, weight, ignore_index, reduction, smoothing)


def labels(shape, c, gen, ignored=0.0, ignore_index=-100):
    y = randint(shape, gen, 0, c)
    return torch.where(randbool(shape, gen, ignored), torch.full_like(y, ignore_index), y) if ignored else y


def probabilities(shape, gen, mode="standard"):
    return torch.softmax(sample(shape, gen, mode) * 2, dim=1)


def fixed_cases(gen):
    yield "example", Call(sample((3, 5), gen), torch.tensor([1, 0, 4]))
    yield "weighted_mean", Call(sample((8, 6), gen), labels((8,), 6, gen), weight=uniform((6,), gen, 0.2, 2.0))
    yield "ignored_none", Call(sample((8, 6), gen), torch.tensor([0, -100, 5, 2, -100, 1, 1, 3]), reduction="none")
    yield "custom_ignore_sum", Call(sample((9, 4), gen), torch.tensor([2, 0, 2, 1, 3, 2, 0, 0, 1]), 1, None, 2, "sum")
    yield "smoothing_weighted_ignored_mean", Call(sample((10, 7), gen), torch.tensor([0, 1, -100, 3, 4, 5, 6, 0, 1,
                                                                                      -100]),
                                                  weight=uniform((7,), gen, 0.2, 2.0), label_smoothing=0.2)
    yield "probability_targets", Call(sample((6, 5), gen), probabilities((6, 5), gen), label_smoothing=0.1)
    yield "probability_targets_weighted_none", Call(sample((6, 5), gen), probabilities((6, 5), gen),
                                                    weight=uniform((5,), gen, 0.5, 1.5), reduction="none")
    yield "spatial_none", Call(sample((2, 4, 3, 5), gen), labels((2, 3, 5), 4, gen), reduction="none")
    yield "dim0_then_classes", Call(sample((6, 4), gen), labels((6,), 4, gen), 0, reduction="none")
    yield "dim_last_3d", Call(sample((2, 5, 6), gen), labels((2, 6), 5, gen), -1, reduction="sum")
    yield "extreme_logits", Call(torch.tensor([[1e4, -1e4, 0.0], [50.0, 50.0, -50.0], [-80.0, 80.0, 0.0]]),
                                 torch.tensor([0, 2, 0]), reduction="none", label_smoothing=0.3)
    # non-contiguous views where the layout cases (derived from spatial_none: dim 1, class targets) never put
    # them: logits of a dim != 1 log_softmax as the first 6 columns of rows of 9 (row stride 9, not 6), and
    # probability targets as columns 1 … 5 of rows of 8 (NaN around them)
    yield "dim_last_sliced_input_none", Call(sample((2, 5, 9), gen)[:, :, :6], labels((2, 6), 5, gen), -1,
                                             reduction="none")
    padded = torch.full((6, 8), float("nan"))
    padded[:, 1:6] = probabilities((6, 5), gen)
    yield "sliced_probability_targets_none", Call(sample((6, 5), gen), padded[:, 1:6], reduction="none")
    masked = sample((3, 600), gen)
    masked[:, :300] = float("-inf")  # the first class blocks of every row are masked out
    yield "masked_first_block_weighted_none", Call(masked, torch.tensor([300, 457, 599]),
                                                   weight=uniform((600,), gen, 0.5, 1.5), reduction="none")
    # log_softmax over dim 0 of 150 rows (longer than one block of a blocked online log-sum-exp), every logit
    # shifted by -1e4: a running max that starts at 0 underflows Σ exp to 0, and one never rescaled by
    # exp(m_old - m_new) between blocks is off
    yield "dim0_long_shifted_none", Call(sample((150, 4), gen) - 1e4, labels((150,), 4, gen), 0, reduction="none")
    # log_softmax over dim 0 where class 0's first 100 rows are -inf (a whole leading block of that column);
    # those rows' targets are other classes
    masked = sample((130, 4), gen)
    masked[:100, 0] = float("-inf")
    yield "dim0_masked_first_rows_none", Call(masked, labels((130,), 3, gen) + 1, 0, reduction="none")


def random_cases(gen, mode):
    yield "n2000_c100_weighted_mean", Call(sample((2000, 100), gen, mode), labels((2000,), 100, gen),
                                           weight=uniform((100,), gen, 0.1, 2.0))
    yield "n1000_c257_smoothing_ignored_none", Call(sample((1000, 257), gen, mode), labels((1000,), 257, gen, 0.1),
                                                    reduction="none", label_smoothing=0.1)
    yield "spatial_n16_c33_sum", Call(sample((16, 33, 200), gen, mode), labels((16, 200), 33, gen, 0.05), 1,
                                      uniform((33,), gen, 0.5, 1.5), -100, "sum")
    yield "probability_targets_mean", Call(sample((500, 64), gen, mode), probabilities((500, 64), gen, mode),
                                           label_smoothing=0.05)


def perf_cases(gen):
    yield "n4096_c128", Call(sample((4096, 128), gen), labels((4096,), 128, gen))
    yield "n2^20_c128", Call(sample((1 << 20, 128), gen), labels((1 << 20,), 128, gen))
    yield "n2^23_c128", Call(sample((1 << 23, 128), gen), labels((1 << 23,), 128, gen))
    yield "n65536_c1024_smoothing", Call(sample((65536, 1024), gen), labels((65536,), 1024, gen),
                                         label_smoothing=0.1)


TASK = Task(
    id="Fusion/fused_cross_entropy_log_softmax",
    entry="fused_cross_entropy_log_softmax",
    signature="fused_cross_entropy_log_softmax(input: Tensor, target: Tensor, dim: int = 1, "
              "weight: Tensor | None = None, ignore_index: int = -100, reduction: str = 'mean', "
              "label_smoothing: float = 0.0) -> Tensor",
    description="input is float32 logits (N, C) or (N, C, d1, …). First X = log_softmax(input, dim). Then torch's "
                "cross_entropy(X, target, …), whose class dimension is always 1: lp = log_softmax(X, dim=1) "
                "(a no-op up to rounding when dim is 1, or -1 of a 2-D input). C is input.size(1), w is weight "
                "(C,) or ones, ε is label_smoothing. "
                "Class-index target (int64, shape (N, d1, …), values in [0, C) or ignore_index): per element "
                "nll = −w[y]·lp[y] and s = −Σ_c w[c]·lp[c], both 0 where y == ignore_index; "
                "loss = (1 − ε)·nll + (ε/C)·s, the s term left out when ε = 0 (so −inf logits of other classes "
                "give a finite loss; a class's logits may be −inf along `dim` for a long leading run, and all "
                "logits may be shifted far below 0, e.g. by −1e4). reduction='none' returns the per-element "
                "losses (shape of target), "
                "'sum' their sum, 'mean' their sum divided by Σ w[y] over the non-ignored elements. "
                "Probability target (float32, same shape as input): t' = (1 − ε)·t + ε/C and per element "
                "loss = −Σ_c w[c]·t'[c]·lp[c]; 'mean' divides the sum by the number of elements N·d1·… . "
                "'mean' and 'sum' return 0-dim float32 tensors.",
    math=r"\ell_i = -(1-\varepsilon)\,w_{y_i}\,\mathrm{lp}_{i,y_i} - \frac{\varepsilon}{C}\sum_c w_c\,"
         r"\mathrm{lp}_{i,c},\quad \mathrm{lp} = \mathrm{log\_softmax}(\mathrm{log\_softmax}(x, \mathrm{dim}), 1)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; target int64 class indices or float32 probabilities; weight float32 "
                             "(C,) or None; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound=sb.LOSS_TEXT + " (applied to both log_softmax steps)",
                      notes="Use the max-subtracted (stable) log-sum-exp; summation order is free (split or "
                            "atomic reductions are fine)."),
    error_bound=error_bound,
    flops=input_flops(10),
    choices={"reduction": ("none", "mean", "sum")},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through the "
                  "two log-sum-exps, the per-element loss and the reduction, with rtol 1e-5",
                  "a fixed atol ignores the class count, the logits' range and the reduction size; the bound "
                  "follows them and stays far below an unstable (unshifted) log-sum-exp or a dropped term"),
        Deviation(Kind.PERF, "12 sizes, (N, 128) logits with class targets, N = 4096 … 8388608",
                  "N = 4096, 2^20 and 2^23, plus (65536, 1024) with label smoothing",
                  "three of upstream's sizes, small to its largest, plus a wider class dim with smoothing, which "
                  "upstream never times"),
    ),
)
