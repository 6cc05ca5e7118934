"""Fusion/fused_log_softmax_linear: log-softmax of a linear layer's output (x Wᵀ + b)."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, dim: int = -1, dtype=None) -> torch.Tensor:
    return F.log_softmax(F.linear(input, weight, bias), dim=dim, dtype=dtype)


def layer(gen, mode, batch, n_out, n_in, bias=True, dtype=torch.float32):
    """Input, weight scaled like nn.Linear's init (logits of order 1) and optional bias."""
    x = sample((*batch, n_in), gen, mode, dtype=dtype)
    w = (sample((n_out, n_in), gen, mode) / math.sqrt(n_in)).to(dtype)
    return (x, w, sample((n_out,), gen, mode, dtype=dtype) if bias else None)


def fixed_cases(gen):
    yield "example", Call(*layer(gen, "standard", (5,), 6, 10), -1)
    yield "no_bias_dim1", Call(*layer(gen, "standard", (5,), 6, 10, bias=False), 1)
    yield "dim0", Call(*layer(gen, "standard", (33,), 17, 24), 0)
    yield "vector_input", Call(*layer(gen, "standard", (), 65, 31))
    yield "batch_3d", Call(*layer(gen, "standard", (2, 7), 40, 48), -1)
    yield "zeros", Call(torch.zeros(4, 8), torch.zeros(5, 8), None)
    x, w, b = layer(gen, "standard", (9,), 50, 64)
    yield "large_logits", Call(x * 30.0, w * 30.0, b * 100.0)
    yield "float64_out", Call(*layer(gen, "standard", (16,), 33, 40), -1, torch.float64)
    yield "float16_out", Call(*layer(gen, "standard", (16,), 33, 40), -1, dtype=torch.float16)
    yield "float16_inputs", Call(*layer(gen, "standard", (7,), 20, 24, dtype=torch.float16), 0)
    # 8200 classes: longer than one block of 8192, so a kernel may stream each row in blocks (8200 is not a
    # multiple of a power-of-two block); row 0 is all zeros and row 1 starts with a logit of 100, so a row that
    # reads one element past its end picks up that 100 and its log-sum-exp jumps from log 8200 to ≈ 100
    w = 0.01 * sample((8200, 1), gen)
    w[0] = 1.0
    yield "classes_8200", Call(torch.tensor([[0.0], [100.0]]), w, None, -1)
    # 1100 rows: more row tiles than one tile group (a partial last group), and 129 columns (a partial last
    # column tile), so a tile order that miscounts the column tiles skips or repeats tiles
    yield "rows1100_cols129", Call(*layer(gen, "standard", (1100,), 129, 16))
    # logits all far below 0 (a bias of -1024): every exp(y) underflows, so a max that starts at 0 (or padding
    # lanes read as 0 rather than -inf, 50 classes in a block of 64) gives Σ exp = 0. The bias is one power of two,
    # exact in every operand precision: a TF32 product that rounds it with the operands stays inside the contract.
    x, w, b = layer(gen, "standard", (6,), 50, 16)
    yield "shifted_logits", Call(x, w, torch.full_like(b, -1024.0))
    # the same along dim 0 of 300 rows × 32 columns: long enough that a kernel streams each column in blocks
    x, w, b = layer(gen, "standard", (300,), 32, 16)
    yield "shifted_dim0_long", Call(x, w, b - 1e3, 0)
    x, w, b = layer(gen, "standard", (300,), 32, 16)
    yield "shifted_dim0_long_float64", Call(x, w, b - 1e3, 0, torch.float64)


def random_cases(gen, mode):
    yield "rows", Call(*layer(gen, mode, (64,), 129, 200))
    yield "batch_no_bias_float64", Call(*layer(gen, mode, (3, 37), 250, 96, bias=False), -1, torch.float64)
    yield "dim0", Call(*layer(gen, mode, (100,), 33, 64), 0)
    yield "float16_inputs", Call(*layer(gen, mode, (32,), 256, 128, dtype=torch.float16))
    yield "float16_out_3d", Call(*layer(gen, mode, (4, 9), 70, 50), 1, torch.float16)


def perf_cases(gen):
    yield "32x1024x1024", Call(*layer(gen, "standard", (32,), 1024, 1024))
    yield "32x16384x16384", Call(*layer(gen, "standard", (32,), 16384, 16384))
    yield "4096x4096x4096", Call(*layer(gen, "standard", (4096,), 4096, 4096))


def flops(call, out):
    weight = call.args[1]
    return 2 * out.numel() * weight.shape[1] + 5 * out.numel()


TASK = Task(
    id="Fusion/fused_log_softmax_linear",
    entry="fused_log_softmax_linear",
    signature="fused_log_softmax_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, dim: int = -1, "
              "dtype: torch.dtype | None = None) -> Tensor",
    description="Applies a linear layer, y = input @ weightᵀ + bias (input (*, in_features), possibly 1-D; weight "
                "(out_features, in_features); bias (out_features,) or None for no bias), then log-softmax along "
                "dimension `dim` of y (negative dims count from the end; dim may also be a batch dimension): "
                "out = y − max(y) − log Σ exp(y − max(y)), which must stay finite for large logits (all logits may lie "
                "far below 0, e.g. a bias of −1e3). When dtype is "
                "given (torch.float64 or torch.float16), y is cast to that dtype before the log-softmax and the "
                "output has that dtype; otherwise the output has the inputs' dtype. Inputs are all float32 or all "
                "float16 (float16: y is accumulated in float32). The output shape is (*, out_features).",
    math=r"y = xA^\top + b,\qquad \mathrm{out}_i = y_i - \log\sum_j e^{y_j}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias all float32 or all float16; output of that dtype, or `dtype` "
                             "when given",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="The linear layer is a matrix product: TF32 products with fp32 accumulation are "
                            "allowed, hence the RMS-scaled tolerance."),
    flops=flops,
    unit="tf32",
    choices={"dtype": (None, torch.float64, torch.float16)},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (5e-3 for float16 inputs)",
                  "rtol 1e-2, atol 1e-2·RMS(out), and relative RMS error ≤ "
                  f"{precision.TF32_REL_RMS:g}: TF32 products (rounded or truncated) pass, bf16 fail",
                  "the linear layer is a matrix product; kbx admits TF32 tensor cores for fp32 products across its "
                  "matmul-class tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "2×2 float32 examples and float16 random inputs 32×128 → 256",
                  "float32 and float16 inputs, 1-D and 3-D inputs, dims 0, 1 and −1, no bias, large logits, "
                  "dtype float64 and float16, up to 111×96 → 250",
                  "every argument of the signature; large logits test the max-shifted log-sum-exp"),
        Deviation(Kind.PERF, "11 sizes, batch 32, in = out = 2^4 … 2^14, float32",
                  "batch 32 with in = out = 1024 and 16384, plus a 4096×4096×4096 product",
                  "a subset spanning small to largest, plus the matrix-matrix regime of a large batch"),
    ),
)
