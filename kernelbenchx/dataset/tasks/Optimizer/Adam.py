"""Optimizer/Adam: one in-place Adam step (L2 weight decay folded into the gradient) on one parameter tensor."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, randint, sample

MUTATES = (0, 2, 3)


def reference(param, grad, exp_avg, exp_avg_sq, step: int, lr: float = 1e-3, beta1: float = 0.9,
              beta2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.0, maximize: bool = False):
    g = -grad if maximize else grad
    if weight_decay != 0:
        g = g.add(param, alpha=weight_decay)
    exp_avg.lerp_(g, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    step_size = lr / (1 - beta1 ** step)
    denom = (exp_avg_sq.sqrt() / math.sqrt(1 - beta2 ** step)).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)
    return param, exp_avg, exp_avg_sq


def state(shape, gen, mode="standard"):
    """A parameter, its gradient and plausible mid-training moments (the second moment is non-negative)."""
    param, grad = sample(shape, gen, mode), sample(shape, gen, mode)
    exp_avg = 0.1 * sample(shape, gen)
    exp_avg_sq = 0.01 * sample(shape, gen).square()
    return param, grad, exp_avg, exp_avg_sq


def fixed_cases(gen):
    z = torch.zeros(33)
    yield "first_step", Call(sample((7, 19), gen), sample((7, 19), gen), torch.zeros(7, 19), torch.zeros(7, 19), 1)
    yield "zero_grad", Call(sample((33,), gen), z.clone(), 0.1 * sample((33,), gen), z.clone(), 3, 0.1)
    yield "mid_training", Call(*state((129, 65), gen), 250, 1e-2, 0.8, 0.95, 1e-6)
    yield "weight_decay", Call(*state((1000,), gen), 7, lr=0.05, weight_decay=0.1)
    yield "maximize", Call(*state((4, 5, 6), gen), 2, lr=0.05, weight_decay=0.01, maximize=True)
    yield "large_eps", Call(*state((257,), gen), 1, 1e-3, 0.9, 0.999, 1.0)


def random_cases(gen, mode):
    step = int(randint((1,), gen, 1, 5000))
    maximize = bool(torch.randint(2, (), generator=gen))
    yield "vector", Call(*state((65_537,), gen, mode), step, maximize=maximize)
    yield "matrix_decay", Call(*state((257, 513), gen, mode), 1, lr=0.01, weight_decay=0.05)
    yield "batch_maximize", Call(*state((3, 61, 127), gen, mode), step + 1, 3e-3, 0.85, 0.99, maximize=not maximize)


def perf_cases(gen):
    # upstream times a torch.optim.Adam step on 2^12 … 2^27 parameters (default hyperparameters)
    for k in (20, 24, 27):
        yield f"n2^{k}", Call(*state((1 << k,), gen), 10)


TASK = Task(
    id="Optimizer/Adam",
    entry="adam_step",
    signature="adam_step(param: Tensor, grad: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor, step: int, "
              "lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8, "
              "weight_decay: float = 0.0, maximize: bool = False) -> tuple[Tensor, Tensor, Tensor]",
    description="One step of torch.optim.Adam (amsgrad=False) for a single parameter tensor, updating `param`, "
                "`exp_avg` (first moment m) and `exp_avg_sq` (second moment v) in place and returning them as "
                "(param, exp_avg, exp_avg_sq). `step` is the step number t ≥ 1 after incrementing (1 on the first "
                "step). With g = -grad if maximize else grad, and g = g + weight_decay·param when weight_decay ≠ 0 "
                "(classic L2 decay, not decoupled): m ← m + (1−beta1)·(g − m); v ← beta2·v + (1−beta2)·g²; "
                "param ← param − (lr / (1 − beta1^t)) · m / (√v / √(1 − beta2^t) + eps). "
                "All tensors have the same shape; `grad` is not modified.",
    math=r"m_t=\beta_1 m_{t-1}+(1-\beta_1)g_t;\ v_t=\beta_2 v_{t-1}+(1-\beta_2)g_t^2;\ "
         r"\theta_t=\theta_{t-1}-\frac{\gamma}{1-\beta_1^t}\,\frac{m_t}{\sqrt{v_t}/\sqrt{1-\beta_2^t}+\epsilon}",
    difficulty=3,
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
        Deviation(Kind.DIFFERENT_TASK, "Adam(params, lr, betas, eps, weight_decay, amsgrad, ...) returns a "
                  "torch.optim.Adam object and the test compares only its hyperparameter dict (.defaults)",
                  "adam_step(param, grad, exp_avg, exp_avg_sq, step, ...): one Adam update of a parameter tensor "
                  "and its moments, in place",
                  "Constructing an optimizer object involves no kernel (and kbx's contract compares tensors and "
                  "forbids classes), so upstream's task cannot be posed to a Triton kernel; the update step is "
                  "the work upstream's perf rows time (2^12 … 2^27 parameters) and what a fused Adam kernel does",
                  in_prompt=True),
        Deviation(Kind.PERF, "16 sizes, 2^12 … 2^27 parameters", "2^20, 2^24 and 2^27 parameters",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
)
