"""Fusion/fused_fractional_max_pool2d_with_relu: ReLU then fractional max pooling with given random samples."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
              *, random_samples: torch.Tensor):
    if isinstance(output_ratio, (int, float)):
        output_ratio = (output_ratio, output_ratio)  # torch documents a number but only accepts pairs
    return F.fractional_max_pool2d(F.relu(input), kernel_size, output_size, output_ratio, return_indices,
                                   _random_samples=random_samples)


def samples(x: torch.Tensor, gen) -> torch.Tensor:
    return uniform((x.shape[0] if x.dim() == 4 else 1, x.shape[-3], 2), gen)


def fixed_cases(gen):
    x = sample((1, 1, 8, 8), gen)
    u = samples(x, gen)
    yield "upstream_k2_out4", Call(x, (2, 2), output_size=(4, 4), random_samples=u)
    yield "upstream_ratio_half", Call(x, (2, 2), output_ratio=(0.5, 0.5), random_samples=u)
    yield "upstream_indices", Call(x, (2, 2), output_size=(4, 4), return_indices=True, random_samples=u)
    yield "upstream_k3", Call(x, (3, 3), output_size=(4, 4), random_samples=u)
    x = -sample((2, 3, 9, 9), gen).abs()  # all ReLU outputs are 0: ties resolve to the first element scanned
    yield "all_negative_ties_indices", Call(x, 2, 4, return_indices=True, random_samples=samples(x, gen))
    x = sample((1, 2, 11, 13), gen)
    yield "rect_kernel_odd_sizes", Call(x, (2, 3), (5, 4), return_indices=True, random_samples=samples(x, gen))
    yield "sample_edges_0_and_almost_1", Call(x, 3, (4, 5), return_indices=True,
                                              random_samples=torch.tensor([[[0.0, 0.99999994], [0.99999994, 0.0]]]))
    yield "output_size_1", Call(x, 3, 1, return_indices=True, random_samples=samples(x, gen))
    x = sample((3, 10, 12), gen)
    yield "three_dim_input", Call(x, 2, output_ratio=0.6, random_samples=samples(x, gen))
    x = sample((1, 2, 8, 8), gen)
    x[0, 0, 2, 3], x[0, 1, 5, 5], x[0, 1, 5, 6] = float("nan"), float("nan"), float("nan")
    yield "nan_propagates", Call(x, 2, 4, return_indices=True, random_samples=samples(x, gen))
    # an output row wider than 2048: window starts computed in fp16 are no longer exact there
    x = sample((1, 1, 3, 4300), gen)
    yield "wide_out_1x2100", Call(x, 2, (1, 2100), return_indices=True, random_samples=samples(x, gen))


def random_cases(gen, mode):
    x = sample((2, 8, 32, 32), gen, mode)
    yield "upstream_ratio_half", Call(x, (2, 2), output_ratio=(0.5, 0.5), random_samples=samples(x, gen))
    x = sample((4, 16, 37, 41), gen, mode)
    yield "k3_out17x19_indices", Call(x, 3, (17, 19), return_indices=True, random_samples=samples(x, gen))
    x = sample((8, 3, 64, 50), gen, mode)
    yield "k2_ratio_0.7x0.6_indices", Call(x, 2, None, (0.7, 0.6), True, random_samples=samples(x, gen))


def perf_cases(gen):
    for hw in (64, 1024, 4096):
        x = sample((16, 3, hw, hw), gen)
        yield f"16x3x{hw}x{hw}_k2_ratio_half", Call(x, 2, output_ratio=0.5, random_samples=samples(x, gen))


def flops(call, out):
    k = call.args[1]
    kh, kw = (k, k) if isinstance(k, int) else k
    first = out[0] if isinstance(out, tuple) else out
    return float(kh * kw * first.numel())


TASK = Task(
    id="Fusion/fused_fractional_max_pool2d_with_relu",
    entry="fused_fractional_max_pool2d_with_relu",
    signature="fused_fractional_max_pool2d_with_relu(input: Tensor, kernel_size, output_size=None, output_ratio=None, "
              "return_indices: bool = False, *, random_samples: Tensor) -> Tensor | tuple[Tensor, Tensor]",
    description="ReLU followed by 2-D fractional max pooling (torch.nn.functional.fractional_max_pool2d) with the "
                "randomness given as an input. input float32 (N, C, H, W) or (C, H, W); kernel_size k = int or "
                "(kH, kW); exactly one of output_size (int or (oH, oW)) and output_ratio (float or (rH, rW); then "
                "oH = int(H·rH), oW = int(W·rW)) is given; random_samples float32 (N, C, 2) ((1, C, 2) for 3-D "
                "input) in [0, 1): per plane, u = random_samples[n, c, 0] places the windows along W and "
                "random_samples[n, c, 1] along H. Window starts along a dimension of input size L, kernel K, "
                "output size O: if O = 1 the start is L − K; otherwise alpha = float32(L − K) / float32(O − 1) "
                "(correctly rounded float32 division), start_i = int((i + u)·alpha) − int(u·alpha) for i < O − 1 "
                "(float32 arithmetic, truncation) and start_{O−1} = L − K. out[n, c, i, j] = max of ReLU(input) "
                "over rows start_i .. start_i + kH − 1 and columns start_j .. start_j + kW − 1. ReLU keeps NaN; a "
                "window containing NaN yields NaN. With return_indices=True also return int64 indices "
                "h·W + w of the chosen element (flat within the plane), scanning rows then columns and "
                "taking the first strictly greater value, except that NaN always replaces (so the last NaN wins). "
                "Returns a new float32 tensor (N, C, oH, oW) (or (C, oH, oW)), or (output, indices).",
    math=r"\mathrm{out}_{ij} = \max_{0 \le a < k_H,\ 0 \le b < k_W} \max(x_{s_i + a,\ t_j + b}, 0),\quad "
         r"s_i = \lfloor (i+u_H)\alpha_H \rfloor - \lfloor u_H \alpha_H \rfloor",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and random_samples float32; output float32; indices int64",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pooling only selects values, so the output must match exactly; indices must match "
                            "exactly. torch's fractional max pooling is random only through the samples, which "
                            "are an input here, so the result is deterministic."),
    flops=flops,
    deviations=(
        Deviation(Kind.SATISFIABLE, "the window offsets come from torch's global generator (fractional_max_pool2d "
                  "draws them) and the output must equal torch's own result", "the samples are an input, "
                  "`random_samples` (N, C, 2) in [0, 1), with torch's interval rule stated; the output is then "
                  "deterministic and compared exactly", "no kernel can reproduce torch's random stream",
                  in_prompt=True),
        Deviation(Kind.PERF, "9 sizes 16×3×h×h for h = 16 … 4096", "h = 64, 1024 and 4096",
                  "a subset of upstream's sizes from small to the largest"),
    ),
)
