"""Fusion/fused_avg_pool2d_cosine_similarity: per-pixel cosine similarity over channels, then 2-D average pooling."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, input_flops, randbool, sample
from kernelbenchx.dataset.tasks.Fusion import _stat_bounds as sb


def reference(x1: torch.Tensor, x2: torch.Tensor, kernel_size: int, stride=None, padding: int = 0,
              eps: float = 1e-8) -> torch.Tensor:
    similarity = F.cosine_similarity(x1, x2, dim=1, eps=eps).unsqueeze(1)
    return F.avg_pool2d(similarity, kernel_size=kernel_size, stride=stride, padding=padding)


def bind(x1, x2, kernel_size, stride=None, padding=0, eps=1e-8):
    return x1, x2, kernel_size, stride, padding, eps


def error_bound(call: Call) -> torch.Tensor:
    """Each pixel's cosine error (dot product and both norms over the C channels, cosine_err) averaged over
    the window, plus the window sum's own rounding."""
    x1, x2, k, stride, padding, eps = bind(*call.args, **call.kwargs)
    cos, dcos = sb.cosine_err(x1, x2, 1, eps)
    pool = dict(kernel_size=k, stride=stride, padding=padding)
    avg_err = F.avg_pool2d(dcos.unsqueeze(1), **pool)
    window = sb.C * sb.E32 * k * F.avg_pool2d(cos.pow(2).unsqueeze(1), **pool).sqrt()
    return avg_err + window


def correlated(shape, gen, mode="standard"):
    a = sample(shape, gen, mode)
    return a, a + sample(shape, gen, mode)


def fixed_cases(gen):
    yield "example", Call(*correlated((2, 5, 8, 8), gen), 3, 2)
    yield "stride_default", Call(sample((1, 3, 6, 6), gen), sample((1, 3, 6, 6), gen), 2)
    yield "padding_counted", Call(*correlated((2, 4, 7, 9), gen), 3, 1, 1)
    yield "same_direction", Call(torch.ones(1, 3, 4, 4), torch.full((1, 3, 4, 4), 2.0), 2, 1, 1)
    x1 = sample((2, 3, 6, 6), gen) * randbool((2, 1, 6, 6), gen, 0.7)
    yield "zero_vectors_large_eps", Call(x1, sample((2, 3, 6, 6), gen) * 0.1, 3, 3, 0, 0.5)
    yield "tiny_vectors", Call(sample((1, 4, 5, 5), gen) * 1e-6, sample((1, 4, 5, 5), gen), 2, 1)
    # ‖x1‖ ≈ 2e-9, below the default eps = 1e-8 (not passed): the clamp sets each cosine's scale.
    yield "norms_below_default_eps", Call(sample((2, 4, 6, 6), gen) * 1e-9, sample((2, 4, 6, 6), gen), 2, 1)


def random_cases(gen, mode):
    yield "n4_c16_33x47_k3s2", Call(*correlated((4, 16, 33, 47), gen, mode), 3, 2)
    yield "n2_c64_40x40_k2", Call(sample((2, 64, 40, 40), gen, mode), sample((2, 64, 40, 40), gen, mode), 2)
    yield "n3_c8_65x31_k5s3p2_eps", Call(*correlated((3, 8, 65, 31), gen, mode), 5, 3, 2, 1e-6)


def perf_cases(gen):
    yield "n16_c64_64x64_k3s2", Call(sample((16, 64, 64, 64), gen), sample((16, 64, 64, 64), gen), 3, 2)
    yield "n16_c64_256x256_k3s2", Call(sample((16, 64, 256, 256), gen), sample((16, 64, 256, 256), gen), 3, 2)
    yield "n16_c64_1024x1024_k2", Call(sample((16, 64, 1024, 1024), gen), sample((16, 64, 1024, 1024), gen), 2)


TASK = Task(
    id="Fusion/fused_avg_pool2d_cosine_similarity",
    entry="fused_avg_pool2d_cosine_similarity",
    signature="fused_avg_pool2d_cosine_similarity(x1: Tensor, x2: Tensor, kernel_size: int, stride: int | None = None, "
              "padding: int = 0, eps: float = 1e-8) -> Tensor",
    description="x1 and x2 are (N, C, H, W) float32. First the cosine similarity over the channel dim at every "
                "pixel, as torch.nn.functional.cosine_similarity computes it: "
                "s = Σ_c (x1_c / max(‖x1‖₂, eps))·(x2_c / max(‖x2‖₂, eps)) (each norm clamped separately, so a "
                "zero vector gives 0). Then s, as an (N, 1, H, W) tensor, is average-pooled with square windows "
                "kernel_size×kernel_size, stride (None means kernel_size) and symmetric zero padding `padding` "
                "(≤ kernel_size/2); output size floor((H + 2·padding − kernel_size)/stride) + 1 per spatial dim; "
                "padded zeros are counted in the divisor, which is always kernel_size². Output float32 "
                "(N, 1, Hout, Wout).",
    math=r"s_{n,h,w} = \sum_c \frac{x_{1,nchw}}{\max(\lVert x_{1,n\cdot hw}\rVert, \epsilon)}"
         r"\frac{x_{2,nchw}}{\max(\lVert x_{2,n\cdot hw}\rVert, \epsilon)},\quad y = \mathrm{avg\_pool2d}(s)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="x1, x2 float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1.0, scale="bound"),
                      bound="B = avg_pool(δs) + 2ε·k·√avg_pool(s²), where each pixel's cosine s may be off by "
                            "δs = 2ε√C‖a∘b‖₂/(|a||b|) + (ρ_a + ρ_b + 4ε)·Σ|a∘b|/(|a||b|), with |a| = max(‖a‖₂, eps), "
                            "ρ_a = ε√C‖a²‖₂/|a|² + 2ε the relative error of the norm, C channels and ε = 2⁻²³",
                      notes="Summation order over channels is free."),
    error_bound=error_bound,
    flops=input_flops(7),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "an error bound propagated through the "
                  "channel dot product, the two norms and the window average, with rtol 1e-5",
                  "a fixed atol does not follow the channel count or the cancellation in a dot product; the "
                  "bound does, and stays well below a wrong normalization or a dropped channel"),
        Deviation(Kind.PERF, "7 sizes, (16, 64, H, H) with H = 16 … 1024", "H = 64 and 256 with kernel 3, stride "
                  "2, and H = 1024 with kernel 2", "three of upstream's sizes, small to its largest"),
    ),
)
