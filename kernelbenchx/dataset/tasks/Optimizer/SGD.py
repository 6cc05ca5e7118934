"""Optimizer/SGD: one in-place SGD step with optional momentum (buffer created when absent), dampening, Nesterov
and weight decay, as upstream's sgd_step."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, tensor_bytes, sample, uniform

MUTATES = (0, 2)


def reference(param, grad, momentum_buffer=None, lr: float = 0.1, momentum: float = 0.9, weight_decay: float = 0.0,
              dampening: float = 0.0, nesterov: bool = False):
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    if momentum > 0:
        if momentum_buffer is None:
            momentum_buffer = torch.zeros_like(grad, memory_format=torch.contiguous_format)
        momentum_buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(momentum_buffer, alpha=momentum) if nesterov else momentum_buffer
    param.add_(grad, alpha=-lr)
    return param, (momentum_buffer if momentum > 0 else None)


def state(shape, gen, mode="standard"):
    return sample(shape, gen, mode), sample(shape, gen, mode), sample(shape, gen)


def flip(gen) -> bool:
    return bool(torch.randint(2, (), generator=gen))


def fixed_cases(gen):
    p, g = sample((128,), gen), sample((128,), gen)
    yield "no_momentum_no_buffer", Call(p, g, None, 0.1, 0.0)
    yield "defaults_zero_buffer", Call(sample((16, 16), gen), sample((16, 16), gen), torch.zeros(16, 16))
    yield "no_momentum_buffer_untouched", Call(*state((7, 19), gen), 0.05, 0.0, 0.2)
    yield "zero_grad", Call(sample((33,), gen), torch.zeros(33), sample((33,), gen), 0.1, 0.9)
    yield "momentum", Call(*state((129, 65), gen), 0.05, 0.9)
    # Without a buffer the step starts from zeros: b = (1 − dampening)·g (torch.optim.SGD would set b = g).
    yield "first_step_dampening", Call(sample((1000,), gen), sample((1000,), gen), None, 0.05, 0.9, 0.0, 0.3)
    yield "first_step_nesterov_decay", Call(sample((257,), gen), sample((257,), gen), None, 0.1, 0.8, 0.01,
                                            nesterov=True)
    yield "dampening", Call(*state((4, 5, 6), gen), 0.1, 0.8, 0.0, 0.3)
    yield "nesterov_decay", Call(*state((257,), gen), 0.1, 0.9, 0.1, nesterov=True)
    yield "nesterov_dampening", Call(*state((3, 100), gen), 0.05, 0.5, 0.05, 0.1, True)
    # the gradient is a contiguous prefix of a longer buffer (finite values follow it in memory) and the
    # momentum buffer is created by the kernel
    yield "first_step_grad_prefix", Call(sample((1000,), gen), sample((1100,), gen)[:1000], None, 0.05, 0.9)
    yield "single_element", Call(torch.tensor([2.0]), torch.tensor([-1.0]), torch.tensor([0.5]), 0.1, 0.9, 0.5, 0.25)


def random_cases(gen, mode):
    damp = float(uniform((), gen, 0.0, 0.5))
    nest = flip(gen)
    yield "vector", Call(*state((65_537,), gen, mode), 0.01, 0.9, 0.0, damp, nest)
    p, g, _ = state((257, 513), gen, mode)
    yield "first_step", Call(p, g, None, 0.02, 0.95, 1e-2, damp, not nest)
    yield "batch_decay", Call(*state((3, 61, 127), gen, mode), 0.05, 0.9, 1e-3, 0.1, nest)
    yield "upstream_random", Call(*state((512,), gen, mode), 0.05, 0.9, 0.01, 0.0, True)
    yield "no_momentum", Call(*state((1001,), gen, mode), 0.1, 0.0, 0.01)


def perf_cases(gen):
    # upstream: param, grad and buffer of 2^10 … 2^28 elements, default hyperparameters
    for k in (20, 24, 28):
        yield f"n2^{k}", Call(*state((1 << k,), gen))


TASK = Task(
    id="Optimizer/SGD",
    entry="sgd_step",
    signature="sgd_step(param: Tensor, grad: Tensor, momentum_buffer: Tensor | None = None, lr: float = 0.1, "
              "momentum: float = 0.9, weight_decay: float = 0.0, dampening: float = 0.0, nesterov: bool = False) "
              "-> tuple[Tensor, Tensor | None]",
    description="One SGD step for a single parameter tensor. g = grad + weight_decay·param when weight_decay ≠ 0, "
                "else grad. If momentum > 0: the momentum buffer b is `momentum_buffer`, updated in place, or, when "
                "momentum_buffer is None, a new tensor of zeros (so that step gives b = (1 − dampening)·g; note "
                "this differs from torch.optim.SGD, whose first step sets b = g); b ← momentum·b + (1 − dampening)·g; "
                "then g ← g + momentum·b if nesterov else g ← b. Finally param ← param − lr·g, in place. Returns "
                "(param, b) when momentum > 0 and (param, None) otherwise; with momentum ≤ 0 a given buffer is "
                "left unchanged. All tensors have the same shape; `grad` is not modified.",
    math=r"g_t=\nabla+\lambda\theta;\ b_t=\mu b_{t-1}+(1-\tau)g_t\ (b_0=0);\ "
         r"\theta_t=\theta_{t-1}-\gamma\,(g_t+\mu b_t\ \text{if nesterov else}\ b_t)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="param, grad, momentum_buffer (or None) float32 of one shape; returns (param, buffer "
                             "or None)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5), mutates=MUTATES,
                      notes="The returned param is the updated input itself (or equal to it); the returned buffer "
                            "is the updated momentum_buffer, or a new tensor when momentum_buffer is None."),
    # Each input read once, each updated state written once (the returned tensors are those same states).
    bytes=lambda call, out: tensor_bytes(call.args) + tensor_bytes([call.args[i] for i in MUTATES if i < len(
        call.args)]),
    flops=elementwise_flops(6),
    deviations=(
        Deviation(Kind.COVERAGE, "4 fixed cases and a Nesterov/decay random case",
                  "adds steps without a buffer (with dampening and Nesterov), dampening on existing buffers, "
                  "momentum 0 with a buffer, zero gradients, random dampening", "the same semantics; a first step "
                  "with dampening ≠ 0 separates upstream's zero-initialized buffer from torch.optim's b = g"),
        Deviation(Kind.COVERAGE, "inputs that own their whole storage",
                  "adds a first step (no buffer) whose gradient is a contiguous 1000-element prefix of a "
                  "1100-element buffer",
                  "a kernel that updates one element past the end writes a finite value into the new momentum "
                  "buffer's guard band, which a NaN read from a fresh input's poison band would not disturb"),
        Deviation(Kind.PERF, "19 sizes, 2^10 … 2^28 elements", "2^20, 2^24 and 2^28 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
)
