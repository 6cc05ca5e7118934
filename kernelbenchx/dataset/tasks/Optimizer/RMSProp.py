"""Optimizer/RMSProp: one in-place RMSProp step on one parameter tensor."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, sample

MUTATES = (0, 2)


def reference(param, grad, square_avg, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
              weight_decay: float = 0.0):
    if weight_decay != 0:
        grad = grad + weight_decay * param
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    avg = square_avg.sqrt().add_(eps)
    param.addcdiv_(grad, avg, value=-lr)
    return param, square_avg


def state(shape, gen, mode="standard"):
    """Parameter, gradient and a non-negative running mean of squared gradients."""
    return sample(shape, gen, mode), sample(shape, gen, mode), sample(shape, gen).square()


def fixed_cases(gen):
    yield "first_step", Call(sample((7, 19), gen), sample((7, 19), gen), torch.zeros(7, 19))
    yield "zero_grad", Call(sample((33,), gen), torch.zeros(33), torch.zeros(33), 0.1)
    yield "mid_training", Call(*state((129, 65), gen), 1e-3, 0.9, 1e-6)
    yield "weight_decay", Call(*state((1000,), gen), lr=0.05, weight_decay=0.1)
    yield "large_eps", Call(*state((4, 5, 6), gen), 0.01, 0.99, 1.0, 0.01)
    # gradients of 1e-9 on the first step: √v ≈ 1e-10 ≪ the default eps, so the step is about lr·g/eps and
    # tells where eps goes (outside the square root) and its value
    yield "tiny_grads_default_eps", Call(sample((31,), gen), sample((31,), gen) * 1e-9, torch.zeros(31), 1.0)


def random_cases(gen, mode):
    yield "vector", Call(*state((65_537,), gen, mode))
    yield "matrix_decay", Call(*state((257, 513), gen, mode), 3e-3, 0.95, 1e-8, 0.05)
    yield "batch", Call(*state((3, 61, 127), gen, mode), 0.02, 0.9)


def perf_cases(gen):
    # upstream: 2^10 … 2^28 elements, default hyperparameters
    for k in (20, 24, 28):
        yield f"n2^{k}", Call(*state((1 << k,), gen))


TASK = Task(
    id="Optimizer/RMSProp",
    entry="rmsprop_step",
    signature="rmsprop_step(param: Tensor, grad: Tensor, square_avg: Tensor, lr: float = 1e-2, alpha: float = 0.99, "
              "eps: float = 1e-8, weight_decay: float = 0.0) -> tuple[Tensor, Tensor]",
    description="One RMSProp step (as torch.optim.RMSprop with momentum=0, centered=False) for a single parameter "
                "tensor, updating `param` and `square_avg` (v) in place and returning them as (param, square_avg). "
                "g = grad + weight_decay·param (when weight_decay ≠ 0, using the old param); "
                "v ← alpha·v + (1−alpha)·g²; param ← param − lr·g / (√v + eps). "
                "All tensors have the same shape; `grad` is not modified.",
    math=r"v_t=\alpha v_{t-1}+(1-\alpha)g_t^2;\ \theta_t=\theta_{t-1}-\eta\,\frac{g_t}{\sqrt{v_t}+\epsilon}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="param, grad, square_avg float32 of one shape; returns the two updated float32 tensors",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5), mutates=MUTATES,
                      notes="The returned tensors are the updated inputs themselves (or equal to them)."),
    # Each input read once, each updated state written once (the returned tensors are those same states).
    bytes=lambda call, out: tensor_bytes(call.args) + tensor_bytes([call.args[i] for i in MUTATES]),
    deviations=(
        Deviation(Kind.COVERAGE, "3 fixed cases", "adds zero gradients, weight decay, large/small hyperparameters "
                  "and random inputs", "the same semantics"),
        Deviation(Kind.PERF, "19 sizes, 2^10 … 2^28 elements", "2^20, 2^24 and 2^28 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
    flops=elementwise_flops(8),
)
