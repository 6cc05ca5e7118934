"""Convolution/conv2d: 2D cross-correlation with stride, padding (incl. 'same'/'valid'), dilation and groups."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0,
              dilation=1, groups: int = 1) -> torch.Tensor:
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups)


def fixed_cases(gen):
    yield "example_pad1", Call(sample((1, 4, 5, 5), gen), sample((8, 4, 3, 3), gen), padding=1)
    yield "ones", Call(torch.ones(1, 2, 4, 4), torch.ones(3, 2, 2, 2), torch.tensor([0.0, 1.0, -1.0]))
    yield "stride2_tuple_pad", Call(sample((2, 3, 9, 10), gen), sample((5, 3, 3, 3), gen), sample((5,), gen),
                                    2, (1, 2))
    yield "rect_stride_dilation", Call(sample((2, 3, 13, 11), gen), sample((4, 3, 3, 2), gen), None, (2, 1), 0, (2, 3))
    yield "same_even_kernel", Call(sample((2, 3, 8, 9), gen), sample((4, 3, 4, 2), gen), sample((4,), gen),
                                   padding="same")
    yield "same_dilated", Call(sample((1, 2, 7, 7), gen), sample((3, 2, 3, 3), gen), padding="same", dilation=2)
    yield "valid", Call(sample((1, 3, 6, 8), gen), sample((2, 3, 5, 5), gen), padding="valid")
    yield "groups2", Call(sample((2, 4, 7, 6), gen), sample((6, 2, 3, 3), gen), sample((6,), gen), 1, 1, 1, 2)
    yield "depthwise", Call(sample((2, 5, 9, 9), gen), sample((5, 1, 3, 3), gen), padding=1, groups=5)
    yield "pointwise", Call(sample((3, 7, 5, 4), gen), sample((9, 7, 1, 1), gen), sample((9,), gen))
    yield "unbatched", Call(sample((3, 8, 8), gen), sample((4, 3, 3, 3), gen), sample((4,), gen), padding=1)


def random_cases(gen, mode):
    yield "pad1_bias", Call(sample((2, 16, 31, 29), gen, mode), sample((24, 16, 3, 3), gen, mode),
                            sample((24,), gen, mode), 1, 1)
    yield "stride2_groups4", Call(sample((3, 32, 23, 25), gen, mode), sample((40, 8, 3, 3), gen, mode), None,
                                  stride=2, padding=1, groups=4)
    yield "5x5_dilated", Call(sample((1, 8, 37, 33), gen, mode), sample((16, 8, 5, 5), gen, mode),
                              sample((16,), gen, mode), 1, 4, 2)


def perf_cases(gen):
    # Rows of upstream's sweep: (N, C, 16, 16) * (2C, C, 3, 3) with bias, stride 1, no padding.
    for n, c in ((2, 16), (16, 128), (64, 512), (128, 1024)):
        yield f"{n}x{c}x16x16_k3", Call(sample((n, c, 16, 16), gen), sample((2 * c, c, 3, 3), gen),
                                       sample((2 * c,), gen))


def flops(call, out):
    w = call.args[1]
    return 2.0 * out.numel() * w.shape[1] * w.shape[2] * w.shape[3]


TASK = Task(
    id="Convolution/conv2d",
    entry="conv2d",
    signature="conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | tuple[int, int] = 1, "
              "padding: int | tuple[int, int] | str = 0, dilation: int | tuple[int, int] = 1, groups: int = 1) "
              "-> Tensor",
    description="2D convolution (cross-correlation, as in deep learning) of `input` (N, C_in, H, W) — or unbatched "
                "(C_in, H, W), giving an unbatched output — with `weight` (C_out, C_in/groups, kH, kW) and optional "
                "`bias` (C_out,). stride and dilation are an int or an (h, w) pair. padding is an int or (h, w) "
                "pair of zeros added on both sides, or the string 'valid' (no padding) or 'same' (stride 1 only: "
                "the output keeps H×W; total padding dilation·(k−1) per axis, with the left/top side getting the "
                "floor half and the right/bottom side the rest). Output size per axis: "
                "floor((H + 2·pad − dilation·(k−1) − 1)/stride) + 1. With groups g, input channels and output "
                "channels split into g equal groups and output group j sees only input group j (groups = C_in is "
                "a depthwise convolution). out[n, o, y, x] = bias[o] + Σ_{c, i, j} input[n, G·C_in/g + c, "
                "y·s − p + i·d, x·s − p + j·d] · weight[o, c, i, j] with G = o // (C_out/g) the group of o and "
                "out-of-range input positions reading as 0.",
    math=r"\mathrm{out}(n, o) = b_o + \sum_{c}\ \mathrm{weight}(o, c) \star \mathrm{input}(n, c)",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, weight, bias float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=_precision.REL_RMS),
                      tf32=True, precision=_precision.PRECISION),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32 products)",
                  "TF32 products allowed: |out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and relative RMS error ≤ "
                  f"{_precision.REL_RMS:g}",
                  "the catalogue notes conv2d supports TensorFloat32 (cuDNN uses it by default for fp32 "
                  "convolutions); the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.PERF, "7 sizes (N, C) = (2, 16) … (128, 1024)", "(2, 16), (16, 128), (64, 512), (128, 1024)",
                  "four rows of upstream's sweep span launch-bound to compute-bound"),
    ),
)
