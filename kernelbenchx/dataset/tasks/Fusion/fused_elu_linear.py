"""Fusion/fused_elu_linear: linear layer (x·Wᵀ + b) followed by ELU, in float16."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample

F16 = torch.float16


def reference(input: torch.Tensor, weight: torch.Tensor, bias=None, alpha: float = 1.0) -> torch.Tensor:
    return F.elu(F.linear(input, weight, bias), alpha=alpha)


def h(shape, gen, mode="standard", scale=1.0):
    return (sample(shape, gen, mode) * scale).to(F16)


def fixed_cases(gen):
    yield "example", Call(h((2, 3), gen), h((4, 3), gen), h((4,), gen))
    yield "alpha_2_no_bias", Call(h((5, 16), gen), h((7, 16), gen), None, 2.0)
    yield "negative_outputs", Call(h((6, 32), gen, scale=0.1), h((8, 32), gen, scale=0.1),
                                   torch.linspace(-12.0, 2.0, 8).to(F16), alpha=0.5)
    yield "zero_input", Call(torch.zeros(3, 8, dtype=F16), h((5, 8), gen), h((5,), gen, scale=3.0), 1.5)
    yield "vector_input", Call(h((24,), gen), h((10, 24), gen), h((10,), gen))
    yield "batched_3d", Call(h((2, 7, 40), gen), h((12, 40), gen), h((12,), gen), 0.3)


def random_cases(gen, mode):
    yield "m200_k256_n129", Call(h((200, 256), gen, mode), h((129, 256), gen, mode, 0.1), h((129,), gen, mode))
    yield "batched_alpha", Call(h((4, 50, 128), gen, mode), h((96, 128), gen, mode, 0.1), h((96,), gen, mode), 0.5)
    yield "no_bias_alpha2", Call(h((64, 255), gen, mode), h((250, 255), gen, mode, 0.1), None, 2.0)


def perf_cases(gen):
    yield "m1024_k256_n256", Call(h((1024, 256), gen), h((256, 256), gen, scale=0.0625), h((256,), gen))
    yield "m4096_k4096_n4096", Call(h((4096, 4096), gen), h((4096, 4096), gen, scale=0.015625), h((4096,), gen))
    yield "m1024_k65536_n256", Call(h((1024, 65536), gen), h((256, 65536), gen, scale=0.00390625), h((256,), gen))


TASK = Task(
    id="Fusion/fused_elu_linear",
    entry="fused_elu_linear",
    signature="fused_elu_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, alpha: float = 1.0) "
              "-> Tensor",
    description="Linear layer then ELU, all in float16. input is (*, K) (any number of leading dims, or a single "
                "vector (K,)), weight is (N, K), bias is (N,) or None. z = input @ weightᵀ + bias, then "
                "out = z where z > 0 and alpha·(exp(z) − 1) where z ≤ 0. Output float16 of shape (*, N). The "
                "upstream `inplace` argument is dropped (the linear result is a temporary, so it has no "
                "observable effect).",
    math=r"\mathrm{out} = \mathrm{ELU}(xW^\top + b),\quad \mathrm{ELU}(z) = \begin{cases} z & z > 0 \\ "
         r"\alpha(e^z - 1) & z \le 0 \end{cases}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float16; output float16",
                      tolerance=Tolerance(rtol=5e-3, atol=5e-3, scale="rms"),
                      notes="Accumulate the product in fp32 (tl.dot on fp16 does); the reference rounds the "
                            "linear result to fp16 before the ELU."),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1] + 4.0 * out.numel(),
    unit="fp16",
)
