"""Optimizer/Lion: one in-place Lion step (sign of an interpolated momentum) on one parameter tensor."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, sample

MUTATES = (0, 2)


def reference(param, grad, exp_avg, lr: float = 1e-4, beta1: float = 0.9, beta2: float = 0.99,
              weight_decay: float = 0.0):
    update = exp_avg * beta1 + grad * (1 - beta1)
    param.mul_(1 - lr * weight_decay).sub_(lr * torch.sign(update))
    exp_avg.mul_(beta2).add_(grad * (1 - beta2))
    return param, exp_avg


def state(shape, gen, mode="standard", beta1=0.9):
    """Parameter, gradient and momentum, with the gradient nudged so that no update lies within 1e-3 of zero:
    the sign there would hinge on the last rounding bit, which is not a property of the kernel."""
    param, grad, exp_avg = sample(shape, gen, mode), sample(shape, gen, mode), 0.5 * sample(shape, gen)
    update = exp_avg * beta1 + grad * (1 - beta1)
    push = torch.where(update >= 0, 0.01, -0.01) / (1 - beta1)
    grad = torch.where(update.abs() < 1e-3, grad + push, grad)
    return param, grad, exp_avg


def fixed_cases(gen):
    yield "zero_update", Call(sample((33,), gen), torch.zeros(33), torch.zeros(33), 0.1, 0.9, 0.99, 0.5)
    yield "defaults", Call(*state((7, 19), gen))
    yield "large_lr", Call(*state((129, 65), gen), 0.05)
    yield "weight_decay", Call(*state((1000,), gen, beta1=0.95), lr=0.01, beta1=0.95, beta2=0.98,
                               weight_decay=0.1)
    yield "signs", Call(torch.ones(8), torch.tensor([1.0, -1.0, 2.0, -2.0, 0.0, 0.0, 5.0, -5.0]),
                        torch.tensor([0.0, 0.0, -1.0, 1.0, 3.0, -3.0, -100.0, 100.0]), 0.1)


def random_cases(gen, mode):
    yield "vector", Call(*state((65_537,), gen, mode), 1e-3)
    yield "matrix_decay", Call(*state((257, 513), gen, mode), 3e-4, 0.9, 0.99, 0.1)
    yield "batch", Call(*state((3, 61, 127), gen, mode, beta1=0.8), 0.01, 0.8, 0.95)


def perf_cases(gen):
    # upstream: 2^10 … 2^28 elements, default hyperparameters
    for k in (20, 24, 28):
        yield f"n2^{k}", Call(*state((1 << k,), gen))


TASK = Task(
    id="Optimizer/Lion",
    entry="lion_step",
    signature="lion_step(param: Tensor, grad: Tensor, exp_avg: Tensor, lr: float = 1e-4, beta1: float = 0.9, "
              "beta2: float = 0.99, weight_decay: float = 0.0) -> tuple[Tensor, Tensor]",
    description="One Lion step for a single parameter tensor, updating `param` and the momentum `exp_avg` (m) in "
                "place and returning them as (param, exp_avg). u = beta1·m + (1−beta1)·grad (from the old m); "
                "param ← param·(1 − lr·weight_decay) − lr·sign(u), with sign(0) = 0; then "
                "m ← beta2·m + (1−beta2)·grad. All tensors have the same shape; `grad` is not modified.",
    math=r"u_t=\beta_1 m_{t-1}+(1-\beta_1)g_t;\ \theta_t=(1-\eta\lambda)\theta_{t-1}-\eta\,\mathrm{sign}(u_t);\ "
         r"m_t=\beta_2 m_{t-1}+(1-\beta_2)g_t",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="param, grad, exp_avg float32 of one shape; returns the two updated float32 tensors",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5), mutates=MUTATES,
                      notes="The returned tensors are the updated inputs themselves (or equal to them). "
                            "Test inputs keep |u| away from 0 except where u is exactly 0."),
    # Each input read once, each updated state written once (the returned tensors are those same states).
    bytes=lambda call, out: tensor_bytes(call.args) + tensor_bytes([call.args[i] for i in MUTATES]),
    deviations=(
        Deviation(Kind.COVERAGE, "3 fixed cases", "adds zero gradients, weight decay, large/small hyperparameters "
                  "and random inputs", "the same semantics"),
        Deviation(Kind.PERF, "19 sizes, 2^10 … 2^28 elements", "2^20, 2^24 and 2^28 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
    flops=elementwise_flops(9),
)
