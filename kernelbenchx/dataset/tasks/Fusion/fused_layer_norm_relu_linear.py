"""Fusion/fused_layer_norm_relu_linear: linear layer, ReLU, then layer normalization."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
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
    # Activations ~1e-4 (variance ~1e-7, well below the default eps): the output scales as 1/sqrt(var + eps), so it
    # exposes a wrong, dropped or misplaced eps (including the default one).
    yield "tiny_activations_default_eps", Call(sample((6, 32), gen), sample((24, 32), gen) * 1e-4,
                                               sample((24,), gen) * 1e-4)


def affine(gen):
    """elementwise_affine drawn per case: it configures the LayerNorm module but, for a fresh module, must not
    change the result."""
    return bool(torch.randint(2, (), generator=gen))


def random_cases(gen, mode):
    yield "m64_k256_n200", Call(sample((64, 256), gen, mode), sample((200, 256), gen, mode),
                                sample((200,), gen, mode), 200, elementwise_affine=affine(gen))
    yield "batched_default_shape", Call(sample((4, 33, 128), gen, mode), sample((96, 128), gen, mode),
                                        sample((96,), gen, mode), elementwise_affine=affine(gen))
    yield "no_bias_eps", Call(sample((100, 255), gen, mode), sample((129, 255), gen, mode), None, [129], 1e-3,
                              affine(gen))
    yield "skinny_m32", Call(sample((32, 1000), gen, mode), sample((513, 1000), gen, mode),
                             sample((513,), gen, mode), 513, elementwise_affine=affine(gen))


def perf_cases(gen):
    for k in (256, 8192, 65536):
        n = k // 2
        yield f"m32_k{k}_n{n}", Call(sample((32, k), gen), sample((n, k), gen), sample((n,), gen), n)


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
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="Row statistics in fp32 (two-pass or Welford)."),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1] + 8.0 * out.numel(),
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32)", "|out − ref| ≤ 1e-2·RMS(ref) + "
                  "1e-2·|ref| and a relative RMS error ≤ 1e-3: TF32 tensor-core products pass, bf16 operands fail",
                  "1e-5 rejects any GEMM that reorders its K-length dot products, let alone TF32, which the GPU "
                  "baseline's cuBLAS may use too; the RMS bound still separates one precision step lower"),
        Deviation(Kind.PERF, "10 sizes, (32, K) inputs with K = 256 … 131072 and (K/2, K) weights",
                  "K = 256, 8192 and 65536", "three of upstream's sizes; its largest weight alone is 34 GB, so "
                  "three input sets do not fit an 80 GB GPU"),
    ),
)
