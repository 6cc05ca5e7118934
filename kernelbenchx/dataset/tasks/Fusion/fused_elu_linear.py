"""Fusion/fused_elu_linear: linear layer (x·Wᵀ + b) followed by ELU, in float16."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample

F16 = torch.float16
F32 = torch.float32


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, alpha: float = 1.0) -> torch.Tensor:
    return F.elu(F.linear(input, weight, bias), alpha=alpha)


def h(shape, gen, mode="standard", scale=1.0, dtype=F16):
    return (sample(shape, gen, mode) * scale).to(dtype)


def f(shape, gen, mode="standard", scale=1.0):
    return h(shape, gen, mode, scale, F32)


def fixed_cases(gen):
    yield "float32_example", Call(f((5, 33), gen), f((20, 33), gen), f((20,), gen), 0.7)
    yield "example", Call(h((2, 3), gen), h((4, 3), gen), h((4,), gen))
    yield "alpha_2_no_bias", Call(h((5, 16), gen), h((7, 16), gen), None, 2.0)
    yield "negative_outputs", Call(h((6, 32), gen, scale=0.1), h((8, 32), gen, scale=0.1),
                                   torch.linspace(-12.0, 2.0, 8).to(F16), alpha=0.5)
    yield "zero_input", Call(torch.zeros(3, 8, dtype=F16), h((5, 8), gen), h((5,), gen, scale=3.0), 1.5)
    yield "vector_input", Call(h((24,), gen), h((10, 24), gen), h((10,), gen))
    yield "batched_3d", Call(h((2, 7, 40), gen), h((12, 40), gen), h((12,), gen), 0.3)
    yield "float32_batched_no_bias", Call(f((3, 9, 64), gen), f((17, 64), gen, scale=0.2), None, 1.5)
    # K >= 2048 with few output tiles: what a split-K kernel does (partial sums reduced after), on rows sliced
    # out of wider storage (row stride 2051) and with M, N not multiples of any tile
    rows = f((6, 2051), gen)[:, :2048]
    yield "float32_long_k_sliced_rows", Call(rows, f((7, 2048), gen, scale=2048 ** -0.5), f((7,), gen), 0.9)
    # float32 outputs near 2e5, partial sums past float16's range (65504): partials kept in float16 overflow
    yield "float32_long_k_large_sums", Call(f((5, 2048), gen).abs() + 100.0, f((6, 2048), gen).abs() * 0.1 + 1.0,
                                            f((6,), gen), 1.0)


def random_cases(gen, mode):
    yield "m200_k256_n129", Call(h((200, 256), gen, mode), h((129, 256), gen, mode, 0.1), h((129,), gen, mode))
    yield "batched_alpha", Call(h((4, 50, 128), gen, mode), h((96, 128), gen, mode, 0.1), h((96,), gen, mode), 0.5)
    yield "no_bias_alpha2", Call(h((64, 255), gen, mode), h((250, 255), gen, mode, 0.1), None, 2.0)
    yield "float32_m300_k512_n96", Call(f((300, 512), gen, mode), f((96, 512), gen, mode, 0.05),
                                        f((96,), gen, mode), 0.8)


def perf_cases(gen):
    for k in (256, 4096, 65536):
        yield f"float32_m1024_k{k}_n256", Call(f((1024, k), gen), f((256, k), gen, scale=k ** -0.5), f((256,), gen))
    yield "float16_m1024_k65536_n256", Call(h((1024, 65536), gen), h((256, 65536), gen, scale=0.00390625),
                                            h((256,), gen))


TASK = Task(
    id="Fusion/fused_elu_linear",
    entry="fused_elu_linear",
    signature="fused_elu_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, alpha: float = 1.0) "
              "-> Tensor",
    description="Linear layer then ELU, in float16 (or float32: all tensors share one dtype). input is (*, K) (any number of leading dims, or a single "
                "vector (K,)), weight is (N, K), bias is (N,) or None. z = input @ weightᵀ + bias, then "
                "out = z where z > 0 and alpha·(exp(z) − 1) where z ≤ 0. Output in the inputs' dtype, shape (*, N). The "
                "upstream `inplace` argument is dropped (the linear result is a temporary, so it has no "
                "observable effect).",
    math=r"\mathrm{out} = \mathrm{ELU}(xW^\top + b),\quad \mathrm{ELU}(z) = \begin{cases} z & z > 0 \\ "
         r"\alpha(e^z - 1) & z \le 0 \end{cases}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias all float16 (or all float32); output the same dtype",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="Accumulate the product in fp32 (tl.dot on fp16 does); the reference rounds the "
                            "linear result to the inputs' dtype before the ELU."),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1] + 4.0 * out.numel(),
    unit="fp16",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 5e-3 (its tests are float16)",
                  "|out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and a relative RMS error ≤ 1e-3",
                  "an elementwise 5e-3 fails honest fp16 GEMMs on outputs near zero whose K-length sums cancel; "
                  "the RMS-scaled bound does not, and the relative RMS bound keeps bf16 operands out"),
        Deviation(Kind.COVERAGE, "float16 inputs only", "float16 and float32 inputs (TF32 allowed for float32)",
                  "upstream times float32 inputs, so kbx tests that dtype too"),
        Deviation(Kind.PERF, "9 sizes, float32 (1024, K) inputs and (256, K) weights with K = 256 … 65536",
                  "float32 with K = 256, 4096 and 65536, plus float16 with K = 65536",
                  "three of upstream's sizes, small to its largest; the float16 case times the dtype upstream "
                  "tests"),
    ),
)
