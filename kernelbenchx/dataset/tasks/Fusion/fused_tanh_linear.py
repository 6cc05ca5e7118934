"""Fusion/fused_tanh_linear: tanh of a linear layer's output (x Wᵀ + b), in float16."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample

HALF = torch.float16


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    return torch.tanh(F.linear(input, weight, bias))


def layer(gen, mode, batch, n_out, n_in, bias=True, gain=1.5):
    """float16 input, weight and optional bias giving pre-activations of standard deviation about `gain`."""
    x = sample((*batch, n_in), gen, mode)
    w = sample((n_out, n_in), gen, mode) * (gain / math.sqrt(n_in))
    b = sample((n_out,), gen, mode) if bias else None
    return (x.to(HALF), w.to(HALF), b.to(HALF) if bias else None)


def fixed_cases(gen):
    yield "example", Call(*layer(gen, "standard", (5,), 4, 3))
    yield "no_bias", Call(*layer(gen, "standard", (5,), 4, 3, bias=False))
    yield "vector_input", Call(*layer(gen, "standard", (), 33, 17))
    yield "batch_3d", Call(*layer(gen, "standard", (2, 7), 40, 48))
    yield "zeros", Call(torch.zeros(4, 8, dtype=HALF), torch.zeros(6, 8, dtype=HALF), torch.zeros(6, dtype=HALF))
    yield "saturating", Call(*layer(gen, "standard", (16,), 24, 64, gain=20.0))
    x = torch.linspace(-6.0, 6.0, 121, dtype=HALF).reshape(-1, 1)
    yield "sweep", Call(x, torch.tensor([[1.0], [0.5], [-2.0]], dtype=HALF), torch.tensor([0.0, 0.1, 0.0], dtype=HALF))


def random_cases(gen, mode):
    yield "rows", Call(*layer(gen, mode, (64,), 129, 200))
    yield "batch_no_bias", Call(*layer(gen, mode, (3, 37), 96, 80, bias=False))
    yield "wide", Call(*layer(gen, mode, (100,), 33, 256))


def perf_cases(gen):
    yield "128x256x1024", Call(*layer(gen, "standard", (128,), 256, 1024))
    yield "4096x4096x4096", Call(*layer(gen, "standard", (4096,), 4096, 4096))
    yield "4096x8192x32768", Call(*layer(gen, "standard", (4096,), 8192, 32768))


def flops(call, out):
    weight = call.args[1]
    return 2 * out.numel() * weight.shape[1] + 4 * out.numel()


TASK = Task(
    id="Fusion/fused_tanh_linear",
    entry="fused_tanh_linear",
    signature="fused_tanh_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor",
    description="Applies a linear layer, y = input @ weightᵀ + bias (input (*, in_features), possibly 1-D; weight "
                "(out_features, in_features); bias (out_features,) or None for no bias), then tanh elementwise. "
                "All tensors are float16; the product is accumulated in float32 and the result is returned as a "
                "new float16 tensor of shape (*, out_features).",
    math=r"\mathrm{out} = \tanh(xA^\top + b)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float16; output float16",
                      tolerance=Tolerance(rtol=5e-3, atol=5e-3),
                      accumulation="fp32 (float16 products, float32 accumulator)"),
    flops=flops,
    unit="fp16",
)
