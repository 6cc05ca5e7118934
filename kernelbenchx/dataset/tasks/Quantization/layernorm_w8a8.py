"""Quantization/layernorm_w8a8: layer norm in fp32 whose output is quantized to int8 per row and dequantized."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import quantized
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.quantized import Limits, activation_sample
from kernelbenchx.dataset.task import Call, Task, sample

# Measured with kernel-like variants of the pipeline and 100 stage-2 seeds: atol is twice the largest
# elementwise effect of rounding flips, LIMITS twice the worst faithful error against the float result.
TOLERANCE = Tolerance(rtol=0.0, atol=0.2, scale="rms")
LIMITS = Limits(rel_rmse=0.086, cosine=0.99818, rel_l1=0.099)
# Upstream judged against the float op with these absolute thresholds (dataset/quantized.py: upstream_judging).
UPSTREAM_THRESHOLDS = "cosine ≥ 0.95, relative L1 ≤ 0.05, RMSE ≤ 0.1"
UNMET = ("with the affine step before quantization, as upstream's docstring orders it, upstream's "
         "corner_extreme_affine (weights and biases up to ±100) gives RMSE 0.35")


def reference(input: torch.Tensor, normalized_shape, weight: torch.Tensor | None = None,
              bias: torch.Tensor | None = None, eps: float = 1e-5) -> torch.Tensor:
    return quantized.layernorm_w8a8(input, normalized_shape, weight, bias, eps)


def unquantized(input: torch.Tensor, normalized_shape, weight: torch.Tensor | None = None,
              bias: torch.Tensor | None = None, eps: float = 1e-5) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return F.layer_norm(input, shape, weight, bias, eps)


def check(call, output, expected, contract):
    return quantized.judge(output, expected, call.invoke(unquantized), contract.tolerance, LIMITS)


def fixed_cases(gen):
    x = sample((6, 64), gen)
    x[2] = 3.0  # zero variance: the normalized row is 0, only the bias survives
    yield "constant_row_eps_1e-10", Call(x, 64, 1.0 + sample((64,), gen), sample((64,), gen), 1e-10)
    yield "no_affine", Call(sample((5, 100), gen), [100])
    yield "extreme_affine", Call(sample((4, 96), gen), 96, 100.0 * sample((96,), gen), 100.0 * sample((96,), gen))
    yield "two_dim_shape", Call(sample((3, 7, 9), gen), [7, 9], sample((7, 9), gen), sample((7, 9), gen))
    yield "offset_10", Call(10.0 + sample((8, 33), gen), 33, None, None, 1e-5)
    yield "single_element_rows", Call(sample((4, 1), gen), 1, sample((1,), gen), sample((1,), gen))
    # eps far from the default: a kernel that ignores the eps argument scales y by √(σ² + 0.1)/√(σ² + 1e-5)
    yield "eps_0.1", Call(sample((4, 80), gen), 80, 1.0 + sample((80,), gen), sample((80,), gen), 0.1)
    # exact ties: weight 0 makes y = bias exactly; bias[0] = 127 makes the scale exactly 1, and the other
    # entries are r + 0.5 for r = -31 … 31, which must round half to even (a rule that rounds ties up, or
    # never away from the floor, moves half of them by a whole step)
    yield "ties_half_even", Call(sample((3, 64), gen), 64, torch.zeros(64),
                                 torch.cat([torch.tensor([127.0]), torch.arange(-31.0, 32.0) + 0.5]))
    # rows longer than 8192 take the multi-pass loop kernel (no other case reaches it); D % 2048 != 0 leaves
    # a partial last block, and the offset makes a lane past D that leaks into the variance or max|y| visible
    yield "loop_d9000_offset_30_no_affine", Call(30.0 + sample((2, 9000), gen), 9000)
    yield "loop_d8200_affine", Call(sample((2, 8200), gen), [8200], 1.0 + sample((8200,), gen),
                                    sample((8200,), gen))


def random_cases(gen, mode):
    yield "rows64_d1024", Call(activation_sample((64, 1024), gen, mode), 1024,
                               1.0 + 0.1 * sample((1024,), gen), 0.1 * sample((1024,), gen))
    yield "rows37_d2000", Call(activation_sample((37, 2000), gen, mode), [2000],
                               activation_sample((2000,), gen, mode), activation_sample((2000,), gen, mode))
    yield "batch_4x30_d777_no_affine", Call(activation_sample((4, 30, 777), gen, mode), 777)


def perf_cases(gen):
    # Upstream's three rows (at most 2^18 elements: launch-bound on an H100) and one 2^25-element row that
    # measures the kernel's bandwidth.
    for rows, d in ((32, 2048), (64, 4096), (32, 8192), (4096, 8192)):
        yield f"rows{rows}_d{d}", Call(sample((rows, d), gen).clamp(-10, 10), d,
                                       1.0 + 0.1 * sample((d,), gen), 0.1 * sample((d,), gen))


def flops(call, out):
    return 10.0 * call.args[0].numel()


TASK = Task(
    id="Quantization/layernorm_w8a8",
    entry="layernorm_w8a8",
    signature="layernorm_w8a8(input: Tensor, normalized_shape: int | list[int], weight: Tensor | None = None, "
              "bias: Tensor | None = None, eps: float = 1e-5) -> Tensor",
    description="Layer normalization whose output passes through int8 quantization. input float32 of shape "
                "(*, *normalized_shape); weight and bias (optional) float32 of shape normalized_shape; output "
                "float32, same shape as input. The result is defined by this pipeline, per row (one "
                "normalization group: the trailing normalized_shape elements); the unquantized "
                "torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps) is only the accuracy "
                "yardstick:\n"
                "1. In fp32: mean μ and biased variance σ² over the row; y = (x − μ)/√(σ² + eps), then "
                "y = y·weight + bias when given (the affine step comes BEFORE quantization).\n"
                "2. Quantize y per row: s = max |y| over the row / 127 (fp32); q = clamp(round(y / s), -127, 127) "
                "as int8, rounding half to even; a row whose max is 0 quantizes to zeros.\n"
                "3. out = q · s (fp32). No quantized PyTorch APIs.",
    math=r"y=\frac{x-\mu}{\sqrt{\sigma^2+\epsilon}}\gamma+\beta,\quad s=\max_{\text{row}}|y|/127,\quad "
         r"\mathrm{out}=s\cdot\mathrm{clamp}(\mathrm{rne}(y/s),-127,127)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32, same shape as input",
                      tolerance=TOLERANCE, accumulation="fp32",
                      # not "expanded": it repeats values along the normalized dimension, so rows are constant and
                      # the output is the mean's fp32 rounding amplified by 1/√eps, which no two kernels share
                      layouts=("transposed", "sliced", "strided", "offset"),
                      notes=quantized.describe_rules(TOLERANCE, LIMITS)),
    flops=flops,
    check=check,
    deviations=quantized.upstream_judging(UPSTREAM_THRESHOLDS, UNMET) + (
        Deviation(Kind.PERF, "(32, 2048), (64, 4096), (32, 8192)", "the same three rows and (4096, 8192)",
                  "upstream's largest row (1 MB) measures launch overhead on an H100; the added row measures "
                  "the kernel's bandwidth"),
    ),
)
