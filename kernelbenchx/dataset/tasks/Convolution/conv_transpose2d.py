"""Convolution/conv_transpose2d: 2D transposed convolution with stride, padding, output_padding, groups, dilation."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0,
              output_padding=0, groups: int = 1, dilation=1) -> torch.Tensor:
    return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def fixed_cases(gen):
    yield "example_upsample", Call(sample((1, 4, 8, 8), gen), sample((4, 6, 3, 3), gen), None, 2, 1, 1)
    yield "ones", Call(torch.ones(1, 1, 3, 3), torch.ones(1, 2, 2, 2), torch.tensor([0.5, -0.5]), 2)
    yield "stride1_full", Call(sample((2, 3, 5, 6), gen), sample((3, 4, 3, 2), gen), sample((4,), gen))
    yield "k4_s2_p1", Call(sample((2, 5, 6, 7), gen), sample((5, 3, 4, 4), gen), sample((3,), gen), 2, 1)
    yield "rect_stride_outpad", Call(sample((1, 3, 4, 5), gen), sample((3, 2, 3, 3), gen), sample((2,), gen),
                                     (2, 3), (1, 0), (1, 2))
    yield "dilation2", Call(sample((2, 2, 5, 5), gen), sample((2, 3, 3, 3), gen), None, 1, 1, dilation=2)
    yield "dilated_outpad", Call(sample((1, 2, 4, 4), gen), sample((2, 2, 3, 3), gen), None, 1, 0, 1, 1, 2)
    yield "groups2", Call(sample((2, 4, 5, 4), gen), sample((4, 3, 3, 3), gen), sample((6,), gen), 2, 1, 1, 2)
    yield "unbatched", Call(sample((3, 6, 6), gen), sample((3, 4, 2, 2), gen), sample((4,), gen), stride=2)


def random_cases(gen, mode):
    yield "s2_p1_op1", Call(sample((2, 16, 15, 17), gen, mode), sample((16, 12, 3, 3), gen, mode),
                            sample((12,), gen, mode), 2, 1, 1)
    yield "k4_s2_groups2", Call(sample((1, 24, 12, 11), gen, mode), sample((24, 8, 4, 4), gen, mode), None,
                                stride=2, padding=1, groups=2)
    yield "dilated", Call(sample((3, 8, 20, 19), gen, mode), sample((8, 8, 5, 5), gen, mode),
                          sample((8,), gen, mode), 1, 4, dilation=2)


def perf_cases(gen):
    # Rows of upstream's sweep: (2, C, 16, 16) * (C, 2C, 3, 3) with bias, stride 2, padding 1, output_padding 1.
    for c in (8, 64, 128, 256):
        yield f"2x{c}x16x16_s2", Call(sample((2, c, 16, 16), gen), sample((c, 2 * c, 3, 3), gen),
                                     sample((2 * c,), gen), 2, 1, 1)


def flops(call, out):
    x, w = call.args[0], call.args[1]
    return 2.0 * x.numel() * w.shape[1] * w.shape[2] * w.shape[3]


TASK = Task(
    id="Convolution/conv_transpose2d",
    entry="conv_transpose2d",
    signature="conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, "
              "stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0, "
              "output_padding: int | tuple[int, int] = 0, groups: int = 1, dilation: int | tuple[int, int] = 1) "
              "-> Tensor",
    description="2D transposed convolution (the gradient of conv2d with respect to its input) of `input` "
                "(N, C_in, H, W) — or unbatched (C_in, H, W), giving an unbatched output — with `weight` "
                "(C_in, C_out/groups, kH, kW) and optional `bias` (C_out,). stride, padding, output_padding and "
                "dilation are each an int or an (h, w) pair. Every input pixel (y, x) of channel c scatters "
                "input·weight[c, o, i, j] to output position (y·s − p + i·d, x·s − p + j·d) of output channel o of "
                "its group; positions outside the output are dropped. Output size per axis: "
                "(H − 1)·stride − 2·padding + dilation·(k − 1) + output_padding + 1 (output_padding < stride or "
                "< dilation only adds rows/columns at the bottom/right). With groups g, input channels split into "
                "g groups of C_in/g, each producing C_out/g output channels. bias[o] is added to every output "
                "position.",
    math=r"\mathrm{out}(n, o, y, x) = b_o + \sum_{c}\sum_{i,j} \mathrm{in}(n, c, y', x')\,w(c, o, i, j),\ "
         r"y = y's - p + i d,\ x = x's - p + j d",
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
                  "cuDNN runs fp32 transposed convolutions on TF32 tensor cores by default; the relative RMS bound "
                  "still rejects bf16 operands"),
        Deviation(Kind.PERF, "6 sizes C = 8 … 256 of (2, C, 16, 16) * (C, 2C, 3, 3)", "C = 8, 64, 128, 256",
                  "four rows of upstream's sweep"),
    ),
)
