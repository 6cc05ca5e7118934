"""Fusion/fused_softplus_linear: Softplus of a linear layer's output (x Wᵀ + b)."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, beta=1, threshold=20) -> torch.Tensor:
    return F.softplus(F.linear(input, weight, bias), beta=beta, threshold=threshold)


def layer(gen, mode, batch, n_out, n_in, bias=True, gain=4.0):
    """Input, weight and optional bias giving pre-activations of standard deviation about `gain`."""
    x = sample((*batch, n_in), gen, mode)
    w = sample((n_out, n_in), gen, mode) * (gain / math.sqrt(n_in))
    return (x, w, sample((n_out,), gen, mode) if bias else None)


def fixed_cases(gen):
    yield "example", Call(*layer(gen, "standard", (2,), 4, 3))
    yield "no_bias", Call(*layer(gen, "standard", (7,), 5, 16, bias=False))
    yield "beta2_threshold10", Call(*layer(gen, "standard", (2,), 4, 3), 2, 10)
    yield "vector_input", Call(*layer(gen, "standard", (), 33, 17))
    yield "batch_3d_beta_half", Call(*layer(gen, "standard", (3, 5), 24, 40), beta=0.5, threshold=5)
    yield "zeros", Call(torch.zeros(4, 8), torch.zeros(6, 8), torch.zeros(6))
    # Pre-activations from -60 to 60 across the linear/log1p switch and deep into the exp underflow.
    x = torch.linspace(-60.0, 60.0, 241).reshape(-1, 1)
    yield "threshold_sweep", Call(x, torch.tensor([[1.0], [0.5], [-1.0]]), torch.tensor([0.0, 0.25, 0.0]))
    yield "threshold_sweep_beta3", Call(x, torch.tensor([[1.0], [0.5]]), None, 3.0, 15.0)


def random_cases(gen, mode):
    yield "rows", Call(*layer(gen, mode, (64,), 129, 200))
    yield "batch_beta2", Call(*layer(gen, mode, (3, 37), 96, 80), 2, 10)
    yield "no_bias_beta_half", Call(*layer(gen, mode, (100,), 33, 64, bias=False, gain=20.0), beta=0.5,
                                    threshold=5)


def perf_cases(gen):
    yield "64x1024x1024", Call(*layer(gen, "standard", (64,), 1024, 1024))
    yield "1x16384x16384", Call(*layer(gen, "standard", (1,), 16384, 16384))
    yield "4096x4096x4096", Call(*layer(gen, "standard", (4096,), 4096, 4096))


def flops(call, out):
    weight = call.args[1]
    return 2 * out.numel() * weight.shape[1] + 4 * out.numel()


TASK = Task(
    id="Fusion/fused_softplus_linear",
    entry="fused_softplus_linear",
    signature="fused_softplus_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, beta: float = 1, "
              "threshold: float = 20) -> Tensor",
    description="Applies a linear layer, y = input @ weightᵀ + bias (input (*, in_features), possibly 1-D; weight "
                "(out_features, in_features); bias (out_features,) or None for no bias), then Softplus "
                "elementwise as torch.nn.functional.softplus does: out = y where beta·y > threshold, otherwise "
                "out = log(1 + exp(beta·y)) / beta (computed without overflow or loss of accuracy for very "
                "negative y, where it tends to exp(beta·y)/beta). Returns a new float32 tensor of shape "
                "(*, out_features).",
    math=r"y = xA^\top + b,\qquad \mathrm{out} = \begin{cases} y & \beta y > \tau \\ "
         r"\tfrac{1}{\beta}\log(1 + e^{\beta y}) & \text{otherwise}\end{cases}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"),
                      tf32=True,
                      notes="The linear layer is a matrix product: TF32 products with fp32 accumulation are "
                            "allowed, hence the RMS-scaled tolerance."),
    flops=flops,
    unit="tf32",
)
