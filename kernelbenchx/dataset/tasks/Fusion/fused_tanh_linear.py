"""Fusion/fused_tanh_linear: tanh of a linear layer's output (x Wᵀ + b), in float32 or float16."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample

HALF = torch.float16


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    return torch.tanh(F.linear(input, weight, bias))


def layer(gen, mode, batch, n_out, n_in, bias=True, gain=1.5, dtype=HALF):
    """Input, weight and optional bias (of `dtype`) giving pre-activations of standard deviation about `gain`."""
    x = sample((*batch, n_in), gen, mode)
    w = sample((n_out, n_in), gen, mode) * (gain / math.sqrt(n_in))
    b = sample((n_out,), gen, mode) * min(gain, 1.0) if bias else None
    return (x.to(dtype), w.to(dtype), b.to(dtype) if bias else None)


def fixed_cases(gen):
    f32 = torch.float32
    yield "example_float32", Call(*layer(gen, "standard", (5,), 4, 3, dtype=f32))
    yield "no_bias_float32", Call(*layer(gen, "standard", (5,), 4, 3, bias=False, dtype=f32))
    yield "example", Call(*layer(gen, "standard", (5,), 4, 3))
    yield "no_bias", Call(*layer(gen, "standard", (5,), 4, 3, bias=False))
    yield "vector_input", Call(*layer(gen, "standard", (), 33, 17))
    yield "batch_3d", Call(*layer(gen, "standard", (2, 7), 40, 48))
    yield "batch_3d_float32", Call(*layer(gen, "standard", (2, 7), 40, 48, gain=0.5, dtype=f32))
    yield "zeros", Call(torch.zeros(4, 8, dtype=HALF), torch.zeros(6, 8, dtype=HALF), torch.zeros(6, dtype=HALF))
    yield "saturating", Call(*layer(gen, "standard", (16,), 24, 64, gain=20.0))
    x = torch.linspace(-6.0, 6.0, 121, dtype=HALF).reshape(-1, 1)
    yield "sweep", Call(x, torch.tensor([[1.0], [0.5], [-2.0]], dtype=HALF), torch.tensor([0.0, 0.1, 0.0], dtype=HALF))
    # a single input row with a transposed (column-major) weight: the layout cases relay a batched case only
    x, w, b = layer(gen, "standard", (), 33, 17)
    yield "vector_input_transposed_weight", Call(x, w.t().contiguous().t(), b)
    # 1100 rows: more row tiles than one tile group (a partial last group), and 129 columns (a partial last
    # column tile), so a tile order that miscounts the column tiles skips or repeats tiles
    yield "rows1100_cols129", Call(*layer(gen, "standard", (1100,), 129, 16))


def random_cases(gen, mode):
    yield "rows", Call(*layer(gen, mode, (64,), 129, 200))
    yield "batch_no_bias", Call(*layer(gen, mode, (3, 37), 96, 80, bias=False))
    yield "wide", Call(*layer(gen, mode, (100,), 33, 256))
    # float32: pre-activations of small spread keep tanh nearly linear, so the product's precision shows.
    yield "rows_float32", Call(*layer(gen, mode, (64,), 256, 128, gain=0.5, dtype=torch.float32))
    yield "batch_float32_no_bias", Call(*layer(gen, mode, (3, 33), 65, 300, bias=False, gain=0.5,
                                               dtype=torch.float32))


def perf_cases(gen):
    f32 = torch.float32
    for i in (10, 13, 15):  # upstream's rows: batch 2^(i-3), in 2^i, out 2^(i-2), float32
        yield f"{1 << (i - 3)}x{1 << (i - 2)}x{1 << i}", Call(*layer(gen, "standard", (1 << (i - 3),), 1 << (i - 2),
                                                                      1 << i, dtype=f32))


def flops(call, out):
    weight = call.args[1]
    return 2 * out.numel() * weight.shape[1] + 4 * out.numel()


TASK = Task(
    id="Fusion/fused_tanh_linear",
    entry="fused_tanh_linear",
    signature="fused_tanh_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor",
    description="Applies a linear layer, y = input @ weightᵀ + bias (input (*, in_features), possibly 1-D; weight "
                "(out_features, in_features); bias (out_features,) or None for no bias), then tanh elementwise. "
                "All tensors of a call share one dtype, float32 or float16; the product is accumulated in float32 "
                "and the result is returned as a new tensor of that dtype and shape (*, out_features).",
    math=r"\mathrm{out} = \tanh(xA^\top + b)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias all float32 or all float16; output of the same dtype",
                      tolerance=Tolerance(rtol=5e-3, atol=5e-3, rel_rms=precision.TF32_REL_RMS),
                      accumulation="fp32 (float16 products for float16 inputs)",
                      tf32=True,
                      precision=precision.TF32_PRECISION + " (float32 inputs)",
                      notes="For float32 inputs the linear layer may use TF32 tensor-core products."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 for float32 and 5e-3 for float16",
                  "rtol = atol = 5e-3 for both, and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "kbx admits TF32 tensor cores for fp32 matrix products across its matmul-class tasks; tanh's "
                  "outputs are O(1), so 5e-3 holds TF32's error while the relative RMS bound rejects bf16 operands"),
        Deviation(Kind.COVERAGE, "float32 cases of at most 5×3 inputs, float16 random cases 64×128 → 256",
                  "float32 and float16 cases up to 99×300 → 65, 1-D and 3-D inputs, no bias, saturating "
                  "pre-activations",
                  "both dtypes upstream tests, at sizes where the product's precision is visible"),
        Deviation(Kind.PERF, "11 sizes, float32, batch 2^(i−3) × in 2^i → out 2^(i−2) for i = 5 … 15",
                  "float32 at i = 10, 13 and 15",
                  "a subset spanning small to largest; float16 is tested for correctness only, as upstream does "
                  "(one roofline unit per task: TF32 for the timed float32 products)"),
    ),
)
