"""Optimizer/AdamW: one in-place AdamW step (decoupled weight decay) on one parameter tensor."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, randint, sample

MUTATES = (0, 2, 3)


def reference(param, grad, exp_avg, exp_avg_sq, step: int, lr: float = 1e-3, beta1: float = 0.9,
              beta2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.01):
    param.mul_(1 - lr * weight_decay)
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    step_size = lr / (1 - beta1 ** step)
    denom = (exp_avg_sq.sqrt() / (1 - beta2 ** step) ** 0.5).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)
    return param, exp_avg, exp_avg_sq


def state(shape, gen, mode="standard"):
    """A parameter, its gradient and plausible mid-training moments (the second moment is non-negative)."""
    param, grad = sample(shape, gen, mode), sample(shape, gen, mode)
    return param, grad, 0.1 * sample(shape, gen), 0.01 * sample(shape, gen).square()


def fixed_cases(gen):
    yield "first_step", Call(sample((7, 19), gen), sample((7, 19), gen), torch.zeros(7, 19), torch.zeros(7, 19), 1)
    yield "zero_grad", Call(sample((33,), gen), torch.zeros(33), 0.1 * sample((33,), gen), torch.zeros(33), 3, 0.1)
    yield "no_decay", Call(*state((129, 65), gen), 250, 1e-2, 0.8, 0.95, 1e-6, 0.0)
    yield "strong_decay", Call(*state((1000,), gen), 7, lr=0.05, weight_decay=0.5)
    yield "large_eps", Call(*state((4, 5, 6), gen), 1, 1e-3, 0.9, 0.999, 1.0)


def random_cases(gen, mode):
    step = int(randint((1,), gen, 1, 5000))
    yield "vector", Call(*state((65_537,), gen, mode), step)
    yield "matrix", Call(*state((257, 513), gen, mode), 1, lr=0.01, weight_decay=0.1)
    yield "batch", Call(*state((3, 61, 127), gen, mode), step + 1, 3e-3, 0.85, 0.99, 1e-7, 0.05)


def perf_cases(gen):
    # upstream: param, grad and both moments of 2^10 … 2^28 elements at step 1
    for k in (20, 24, 28):
        yield f"n2^{k}", Call(*state((1 << k,), gen), 1)


TASK = Task(
    id="Optimizer/AdamW",
    entry="adamw_step",
    signature="adamw_step(param: Tensor, grad: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, step: int, "
              "lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8, "
              "weight_decay: float = 0.01) -> tuple[Tensor, Tensor, Tensor]",
    description="One AdamW step (as torch.optim.AdamW, amsgrad=False) for a single parameter tensor, updating "
                "`param`, `exp_avg` (m) and `exp_avg_sq` (v) in place and returning them as (param, exp_avg, "
                "exp_avg_sq). `step` is the step number t ≥ 1 (1 on the first step). Decoupled decay first: "
                "param ← param·(1 − lr·weight_decay); then m ← beta1·m + (1−beta1)·grad; "
                "v ← beta2·v + (1−beta2)·grad²; param ← param − (lr / (1 − beta1^t)) · m / (√v / √(1 − beta2^t) + eps). "
                "All tensors have the same shape; `grad` is not modified.",
    math=r"\theta \leftarrow \theta(1-\eta\lambda);\ m_t=\beta_1 m_{t-1}+(1-\beta_1)g_t;\ "
         r"v_t=\beta_2 v_{t-1}+(1-\beta_2)g_t^2;\ "
         r"\theta_t=\theta-\frac{\eta}{1-\beta_1^t}\,\frac{m_t}{\sqrt{v_t}/\sqrt{1-\beta_2^t}+\epsilon}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="param, grad, exp_avg, exp_avg_sq float32 of one shape; step int; returns the three "
                             "updated float32 tensors",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5), mutates=MUTATES,
                      notes="The returned tensors are the updated inputs themselves (or equal to them); "
                            "the bias corrections are scalars that may be computed on the host."),
    # Each input read once, each updated state written once (the returned tensors are those same states).
    bytes=lambda call, out: tensor_bytes(call.args) + tensor_bytes([call.args[i] for i in MUTATES]),
    flops=elementwise_flops(14),
    deviations=(
        Deviation(Kind.COVERAGE, "3 fixed cases (zero moments, weight decay, step 100)",
                  "adds zero gradients, no decay, strong decay, large eps, random steps and hyperparameters",
                  "the same semantics"),
        Deviation(Kind.PERF, "19 sizes, 2^10 … 2^28 elements", "2^20, 2^24 and 2^28 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
)
