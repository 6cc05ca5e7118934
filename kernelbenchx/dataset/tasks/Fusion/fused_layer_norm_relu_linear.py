"""Fusion/fused_layer_norm_relu_linear: linear layer, ReLU, then layer normalization."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, normalized_shape=None, eps: float = 1e-5,
              elementwise_affine: bool = True) -> torch.Tensor:
    # elementwise_affine describes a freshly built LayerNorm, whose weight is 1 and bias 0: no effect.
    activated = F.relu(F.linear(input, weight, bias))
    if normalized_shape is None:
        normalized_shape = activated.shape[-1]
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return F.layer_norm(activated, tuple(normalized_shape), eps=eps)


def fixed_cases(gen):
    yield "example", Call(sample((4, 5), gen), sample((3, 5), gen), sample((3,), gen), 3)
    yield "default_shape_no_bias", Call(sample((6, 16), gen), sample((8, 16), gen))
    yield "two_normalized_dims", Call(sample((2, 5, 16), gen), sample((12, 16), gen), sample((12,), gen), [5, 12])
    yield "dead_rows", Call(sample((3, 8), gen), sample((6, 8), gen) * 0.01, torch.full((6,), -10.0), 6)
    yield "no_affine_large_eps", Call(sample((5, 10), gen), sample((7, 10), gen), sample((7,), gen), [7], 0.5, False)


def random_cases(gen, mode):
    yield "m64_k256_n200", Call(sample((64, 256), gen, mode), sample((200, 256), gen, mode),
                                sample((200,), gen, mode), 200)
    yield "batched_default_shape", Call(sample((4, 33, 128), gen, mode), sample((96, 128), gen, mode),
                                        sample((96,), gen, mode))
    yield "no_bias_eps", Call(sample((100, 255), gen, mode), sample((129, 255), gen, mode), None, [129], 1e-3)


def perf_cases(gen):
    yield "m32_k256_n128", Call(sample((32, 256), gen), sample((128, 256), gen), sample((128,), gen), 128)
    yield "m32_k8192_n4096", Call(sample((32, 8192), gen), sample((4096, 8192), gen), sample((4096,), gen), 4096)
    yield "m4096_k4096_n4096", Call(sample((4096, 4096), gen), sample((4096, 4096), gen), sample((4096,), gen), 4096)


TASK = Task(
    id="Fusion/fused_layer_norm_relu_linear",
    entry="fused_layer_norm_relu_linear",
    signature="fused_layer_norm_relu_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, "
              "normalized_shape: int | list[int] | None = None, eps: float = 1e-5, "
              "elementwise_affine: bool = True) -> Tensor",
    description="Three steps. (1) z = input @ weightᵀ + bias, with input (*, K), weight (N, K), bias (N,) or None. "
                "(2) r = ReLU(z). (3) Layer normalization of r over its trailing dims given by normalized_shape (an "
                "int or list; None means the last dim, N): subtract the mean and divide by sqrt(biased variance + "
                "eps), statistics over those trailing dims. A group that is entirely zero normalizes to 0. "
                "elementwise_affine is accepted for compatibility but has no effect: it configures a freshly "
                "initialised LayerNorm whose weight is 1 and bias 0. Output float32 with the shape of z.",
    math=r"y = \frac{r - \mathrm{E}[r]}{\sqrt{\mathrm{Var}[r] + \epsilon}},\quad r = \max(0, xW^\top + b)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"),
                      tf32=True,
                      notes="Row statistics in fp32 (two-pass or Welford)."),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1] + 8.0 * out.numel(),
    unit="tf32",
)
