"""Optimizer/SGD: one in-place SGD step with optional momentum, dampening, Nesterov, weight decay, maximize."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, sample

MUTATES = (0, 2)


def reference(param, grad, momentum_buffer, lr: float = 1e-3, momentum: float = 0.0, weight_decay: float = 0.0,
              dampening: float = 0.0, nesterov: bool = False, maximize: bool = False, first_step: bool = False):
    g = -grad if maximize else grad
    if weight_decay != 0:
        g = g.add(param, alpha=weight_decay)
    if momentum != 0:
        if first_step:
            momentum_buffer.copy_(g)
        else:
            momentum_buffer.mul_(momentum).add_(g, alpha=1 - dampening)
        g = g.add(momentum_buffer, alpha=momentum) if nesterov else momentum_buffer
    param.add_(g, alpha=-lr)
    return param, momentum_buffer


def state(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode), sample(shape, gen)


def fixed_cases(gen):
    yield "plain", Call(*state((7, 19), gen), 0.1)
    yield "zero_grad", Call(sample((33,), gen), torch.zeros(33), sample((33,), gen), 0.1, 0.9)
    yield "momentum", Call(*state((129, 65), gen), 0.05, 0.9)
    yield "first_step", Call(*state((1000,), gen), 0.05, 0.9, first_step=True)
    yield "first_step_nesterov", Call(*state((1000,), gen), 0.05, 0.9, 0.01, nesterov=True, first_step=True)
    yield "dampening", Call(*state((4, 5, 6), gen), 0.1, 0.8, 0.0, 0.3)
    yield "nesterov_decay", Call(*state((257,), gen), 0.1, 0.9, 0.1, nesterov=True)
    yield "maximize", Call(*state((257,), gen), 0.1, 0.5, 0.05, 0.1, maximize=True)
    yield "decay_no_momentum", Call(*state((100,), gen), 0.5, 0.0, 0.2)


def random_cases(gen, mode):
    yield "vector", Call(*state((65_537,), gen, mode), 0.01, 0.9)
    yield "matrix_nesterov", Call(*state((257, 513), gen, mode), 0.02, 0.95, 1e-2, nesterov=True)
    yield "batch_dampening", Call(*state((3, 61, 127), gen, mode), 0.05, 0.9, 1e-3, 0.1, maximize=True)


def perf_cases(gen):
    yield "n2^20", Call(*state((1 << 20,), gen), 0.01, 0.9)
    yield "n2^24", Call(*state((1 << 24,), gen), 0.01, 0.9, 1e-4)
    yield "n2^26_nesterov", Call(*state((1 << 26,), gen), 0.01, 0.9, 1e-4, nesterov=True)


TASK = Task(
    id="Optimizer/SGD",
    entry="sgd_step",
    signature="sgd_step(param: Tensor, grad: Tensor, momentum_buffer: Tensor, lr: float = 1e-3, "
              "momentum: float = 0.0, weight_decay: float = 0.0, dampening: float = 0.0, nesterov: bool = False, "
              "maximize: bool = False, first_step: bool = False) -> tuple[Tensor, Tensor]",
    description="One step of torch.optim.SGD for a single parameter tensor, updating `param` and `momentum_buffer` "
                "(b) in place and returning them as (param, momentum_buffer). g = -grad if maximize else grad; "
                "g ← g + weight_decay·param when weight_decay ≠ 0. If momentum ≠ 0: b ← g on the first step "
                "(first_step=True, the old buffer contents are ignored), else b ← momentum·b + (1−dampening)·g; "
                "then g ← g + momentum·b if nesterov else g ← b. Finally param ← param − lr·g. "
                "With momentum = 0 the buffer is left unchanged. All tensors have the same shape; "
                "`grad` is not modified.",
    math=r"g_t=\pm\nabla+\lambda\theta;\ b_t=\mu b_{t-1}+(1-\tau)g_t\ (b_1=g_1);\ "
         r"\theta_t=\theta_{t-1}-\gamma\,(g_t+\mu b_t\ \text{if nesterov else}\ b_t)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="param, grad, momentum_buffer float32 of one shape; returns the two updated float32 "
                             "tensors",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5), mutates=MUTATES,
                      notes="The returned tensors are the updated inputs themselves (or equal to them)."),
    # Each input read once, each updated state written once (the returned tensors are those same states).
    bytes=lambda call, out: tensor_bytes(call.args) + tensor_bytes([call.args[i] for i in MUTATES]),
    flops=elementwise_flops(6),
)
