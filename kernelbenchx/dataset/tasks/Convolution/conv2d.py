"""Convolution/conv2d: 2D cross-correlation with stride, padding (incl. 'same'/'valid'), dilation and groups."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


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
    yield "2x16x16x16_k3", Call(sample((2, 16, 16, 16), gen), sample((32, 16, 3, 3), gen), sample((32,), gen),
                                padding=1)
    yield "64x256x56x56_k3", Call(sample((64, 256, 56, 56), gen), sample((256, 256, 3, 3), gen),
                                  sample((256,), gen), padding=1)
    yield "32x128x112x112_k3_s2", Call(sample((32, 128, 112, 112), gen), sample((256, 128, 3, 3), gen), None,
                                       2, 1)
    yield "32x512x28x28_depthwise", Call(sample((32, 512, 28, 28), gen), sample((512, 1, 3, 3), gen),
                                         sample((512,), gen), 1, 1, 1, 512)


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
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"),
                      tf32=True,
                      notes="TF32 tensor-core products are allowed (about 1e-3 relative error per product); atol "
                            "is 1e-2 × RMS of the reference output."),
    flops=flops,
    unit="tf32",
)
