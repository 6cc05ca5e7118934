"""Loss/cross_entropy: softmax cross entropy of logits against class indices, with class weights and ignore_index."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.layouts import strided
from kernelbenchx.dataset.task import Call, Task, randbool, randint, sample, uniform
from kernelbenchx.dataset.tasks.Loss.nll_loss import selected_weights
from kernelbenchx.dataset import bounds as _bounds

REDUCTIONS = ("none", "mean", "sum")


def reference(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
              ignore_index: int = -100, reduction: str = "mean") -> torch.Tensor:
    return F.cross_entropy(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def bind(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return input, target, weight, ignore_index, reduction


def error_bound(call: Call) -> torch.Tensor:
    """Per position, with m = max_c x_c, s = Σ_c exp(x_c − m) and lse = m + log s: the sum s carries
    B_sum(exp(x − m)) plus 2ε·(1 + |x_c − m|) per term (exp of a rounded argument), which log turns into an
    absolute error of B_s/s; forming lse and lse − x_y rounds at the magnitudes |m|, |x_y|, |log s| and |ℓ|:
    e = |w[y]|·(2ε·(|m| + |x_y| + |log s| + |lse − x_y|) + B_s/s)."""
    x, t, w, ignore_index, reduction = bind(*call.args, **call.kwargs)
    x64 = x.double()
    cdim = 1 if x.dim() > 1 else 0
    loss = F.cross_entropy(x64, t, weight=None if w is None else w.double(), ignore_index=ignore_index,
                           reduction="none")
    m = x64.amax(cdim, keepdim=True)
    terms = (x64 - m).exp()
    s = terms.sum(cdim)
    spread = torch.where(terms > 0, terms * (1 + (x64 - m).abs()), torch.zeros_like(terms))  # -inf logits: 0
    b_s = _bounds.sum_bound(terms, cdim) + 2 * _bounds.EPS32 * spread.sum(cdim)
    keep = t != ignore_index
    safe = torch.where(keep, t, torch.zeros_like(t)).unsqueeze(cdim)
    x_y = x64.gather(cdim, safe).squeeze(cdim)
    lse = m.squeeze(cdim) + s.log()
    ws = selected_weights(x, t, w, ignore_index)
    elem = ws.abs() * (2 * _bounds.EPS32 * (m.squeeze(cdim).abs() + x_y.abs() + s.log().abs() + (lse - x_y).abs())
                       + b_s / s)
    return _bounds.loss_bound(loss, elem, reduction, divisor=ws.sum(), b_divisor=_bounds.sum_bound(ws))


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
    # the class weights as a non-contiguous view (stride 2, poison between): w[y] must be read through its stride
    yield "weight_strided", Call(sample((12, 9), gen), targets((12,), 9, gen), strided(uniform((9,), gen, 0.5, 2.0)))
    # every logit far below 0: a running maximum that starts at 0 instead of -inf underflows Σ exp to 0
    yield "shifted_logits_none", Call(sample((4, 6), gen) - 1e4, targets((4,), 6, gen), reduction="none")
    # 20 classes strided by S = 3, the first 16 masked (-inf) at every position: a blocked logsumexp sees a
    # whole first block of -inf before any finite logit (-inf - -inf is NaN unless the max is guarded)
    masked = sample((2, 20, 3), gen)
    masked[:, :16] = float("-inf")
    yield "spatial_masked_first_classes_none", Call(masked, randint((2, 3), gen, 16, 20), reduction="none")


def random_cases(gen, mode):
    yield "rows", Call(sample((256, 1000), gen, mode) * 2, targets((256,), 1000, gen, p_ignore=0.05))
    yield "weighted_sum", Call(sample((1023, 37), gen, mode), targets((1023,), 37, gen),
                               uniform((37,), gen, 0.5, 2.0), reduction="sum")
    yield "spatial_weighted", Call(sample((3, 19, 33, 31), gen, mode), targets((3, 33, 31), 19, gen, 255, 0.1),
                                   uniform((19,), gen, 0.5, 2.0), 255)
    yield "none", Call(sample((129, 511), gen, mode), targets((129,), 511, gen, p_ignore=0.1), reduction="none")


def perf_cases(gen):
    # upstream: (256 … 32768) × 1000 logits, default arguments
    for n in (256, 4096, 32768):
        yield f"{n}x1000", Call(sample((n, 1000), gen), targets((n,), 1000, gen))


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
                "must be numerically stable (logits can be large, or all shifted far below 0, e.g. by −1e4). "
                "Logits may be −inf (masked classes, even a whole leading run of classes); the target's logit is "
                "finite. Output dtype = input dtype. (Class-probability "
                "targets and label smoothing are not part of this task.)",
    math=r"\ell_n = -w_{y_n}\log\frac{e^{x_{n,y_n}}}{\sum_c e^{x_{n,c}}},\quad "
         r"\ell = \frac{\sum_n \ell_n}{\sum_n w_{y_n}}\ (\text{mean})",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input (and weight) float32; target int64; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="with, per position, m = max_c x_c, s = Σ_c exp(x_c − m), B_s = B_sum(exp(x − m)) + "
                            "Σ_c 2ε·(1 + |x_c − m|)·exp(x_c − m), e = |w[y]|·(2ε·(|m| + |x_y| + |log s| + "
                            "|ℓ/w[y]|) + B_s/s), and for 'mean' the divisor Σ w[y] over the non-ignored positions, "
                            + _bounds.LOSS_TEXT,
                      notes="Summation order is free (atomics, split reductions, trees)."),
    error_bound=error_bound,
    choices={"reduction": REDUCTIONS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "an accumulation bound on the logsumexp, the reduced loss and the sum of weights (see the "
                  "contract) plus rtol 1e-5",
                  "with large logits (|x| ~ 300) m + log s − x_y rounds at the magnitude of m, far above 1e-5 "
                  "for small losses; a fixed atol does not grow with the reduction length either. The bound "
                  "admits every summation order and rejects fp16/bf16 accumulation (tests/test_tolerances.py)"),
        Deviation(Kind.COVERAGE, "(N, C) logits with default arguments",
                  "adds class weights, ignore_index (default, custom, a valid class, every position ignored), "
                  "unbatched and spatial inputs, large logits, every reduction", "the signature promises them"),
        Deviation(Kind.PERF, "8 sizes, (256 … 32768) × 1000", "256, 4096 and 32768 rows of 1000",
                  "a subset spanning upstream's range"),
    ),
    flops=flops,
)
