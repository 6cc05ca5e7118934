"""SpatialOps/interpolate: resize a 4-D image batch (nearest, nearest-exact, bilinear or bicubic)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample

FLOPS_PER_OUTPUT = {"nearest": 0.0, "nearest-exact": 0.0, "bilinear": 8.0, "bicubic": 40.0}


def reference(input: torch.Tensor, size=None, scale_factor=None, mode: str = "nearest",
              align_corners=None) -> torch.Tensor:
    return F.interpolate(input, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners)


def fixed_cases(gen):
    x = sample((2, 3, 7, 9), gen)
    # Nearest sizes are coprime (or exact ratios) so that no source index hinges on rounding dst·scale.
    yield "nearest_up_size", Call(x, (13, 20))
    yield "nearest_down_size", Call(sample((1, 2, 29, 31), gen), (11, 12))
    yield "nearest_scale_2", Call(x, scale_factor=2.0)
    yield "nearest_scale_half", Call(sample((1, 2, 8, 12), gen), scale_factor=0.5)
    yield "nearest_exact_up", Call(x, (16, 20), mode="nearest-exact")
    yield "nearest_exact_scale_tuple", Call(x, scale_factor=(2.0, 0.5), mode="nearest-exact")
    for mode in ("bilinear", "bicubic"):
        yield f"{mode}_up", Call(x, (13, 20), mode=mode)
        yield f"{mode}_down", Call(sample((1, 2, 29, 31), gen), (11, 12), mode=mode)
        yield f"{mode}_aligned", Call(x, (13, 20), mode=mode, align_corners=True)
        yield f"{mode}_scale_factor", Call(x, scale_factor=1.7, mode=mode)
        yield f"{mode}_scale_factor_aligned", Call(x, scale_factor=(0.6, 2.5), mode=mode, align_corners=True)
    yield "bilinear_one_pixel_out_aligned", Call(x, (1, 1), mode="bilinear", align_corners=True)
    yield "bicubic_from_one_row", Call(sample((2, 2, 1, 5), gen), (4, 9), mode="bicubic")
    yield "int_size", Call(x, 11, mode="bilinear")
    # the input is a contiguous prefix of a longer buffer: finite values follow it in memory
    yield "nearest_buffer_prefix", Call(sample((2, 2, 5, 7), gen)[:1], (9, 11))
    # rows and columns of 2100 pixels (source indices above 2048, where float16 stops holding every integer);
    # at scale factor 2 the source coordinates dst/2 − 1/4 are exact, so fp32 rounding adds no error
    yield "bilinear_wide_rows", Call(sample((1, 1, 2, 2100), gen), scale_factor=2.0, mode="bilinear")
    yield "bilinear_tall_columns", Call(sample((1, 1, 2100, 2), gen), scale_factor=2.0, mode="bilinear")


def random_cases(gen, mode):
    yield "bilinear_up", Call(sample((2, 3, 97, 131), gen, mode), (150, 200), mode="bilinear")
    yield "bicubic_down_aligned", Call(sample((1, 8, 131, 127), gen, mode), (67, 61), mode="bicubic",
                                       align_corners=True)
    yield "nearest_scale_2", Call(sample((4, 16, 37, 41), gen, mode), scale_factor=2.0)
    yield "nearest_exact", Call(sample((2, 5, 63, 45), gen, mode), (100, 71), mode="nearest-exact")
    yield "bicubic_scale", Call(sample((3, 4, 61, 67), gen, mode), scale_factor=1.5, mode="bicubic")


def perf_cases(gen):
    yield "2x3x128x128_to_256", Call(sample((2, 3, 128, 128), gen), (256, 256))
    yield "2x3x256x256_to_512", Call(sample((2, 3, 256, 256), gen), (512, 512))
    yield "2x3x256x256_to_512_bilinear", Call(sample((2, 3, 256, 256), gen), (512, 512), mode="bilinear")


def flops(call, out):
    mode = call.kwargs.get("mode", call.args[3] if len(call.args) > 3 else "nearest")
    return FLOPS_PER_OUTPUT.get(mode, 8.0) * out.numel()


TASK = Task(
    id="SpatialOps/interpolate",
    entry="interpolate",
    signature="interpolate(input: Tensor, size: int | tuple[int, int] | None = None, "
              "scale_factor: float | tuple[float, float] | None = None, mode: str = 'nearest', "
              "align_corners: bool | None = None) -> Tensor",
    description="torch.nn.functional.interpolate for 4-D input (N, C, H_in, W_in) and mode 'nearest', "
                "'nearest-exact', 'bilinear' or 'bicubic' (recompute_scale_factor and antialias keep their "
                "defaults; other modes and ranks are not part of the task). Exactly one of size (an int for both "
                "axes, or (H_out, W_out)) and scale_factor (a float or a pair) is given; with scale_factor, "
                "out = floor(in·scale_factor) per axis. Per axis, scale = 1/scale_factor when scale_factor is "
                "given, else in/out. nearest: src = min(floor(dst·scale), in − 1); nearest-exact: "
                "src = min(floor((dst + 0.5)·scale), in − 1). bilinear and bicubic: align_corners=True uses "
                "src = dst·(in − 1)/(out − 1) (0 when out = 1); align_corners False/None uses "
                "src = scale·(dst + 0.5) − 0.5, clamped below at 0 for bilinear only. bilinear: i0 = floor(src), "
                "i1 = min(i0 + 1, in − 1), weights (1 − λ, λ) with λ = src − i0, separably on both axes. "
                "bicubic: i0 = floor(src), t = src − i0, taps i0 − 1 … i0 + 2 with indices clamped to "
                "[0, in − 1], weights from the cubic convolution kernel with A = −0.75, separably. align_corners "
                "must be None for the nearest modes. Returns a new float32 (N, C, H_out, W_out) tensor.",
    math=r"\mathrm{out}_{n,c,h,w} = \sum_{i,j} k(s_y - j)\,k(s_x - i)\,\mathrm{input}_{n,c,j,i}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (N, C, H, W); output float32 (N, C, H_out, W_out)",
                      tolerance=Tolerance(rtol=1e-3, atol=1e-3, scale="rms"),
                      notes="Tolerance 1e-3 (atol × the output's RMS): the fp32 source coordinate carries an "
                            "error of a few units of size × 6e-8, which interpolation multiplies by the local "
                            "image gradient (up to ~10 for noise images; inputs here are at most 256 pixels, except 2100-pixel rows and columns at scale factor 2, whose "
                            "coordinates are exact). "
                            "Nearest-mode tests avoid sizes where dst·scale lands on an integer "
                            "inexactly."),
    flops=flops,
    choices={"mode": ("nearest", "nearest-exact", "bilinear", "bicubic")},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|out − ref| ≤ 1e-3·RMS(out) + 1e-3·|ref|",
                  "the fp32 source coordinate's rounding is multiplied by the local image gradient, so two "
                  "correct kernels differ by more than 1e-5 on noise images"),
        Deviation(Kind.PERF, "2×3×(32 … 256)² resized to twice the size (4 rows; the mode is not in the golden "
                  "data)", "2×3×128² → 256² and 2×3×256² → 512² in the default mode (nearest), and 2×3×256² → "
                  "512² bilinear", "a subset of upstream's rows spanning its range"),
        Deviation(Kind.COVERAGE, "inputs that own their whole storage, at most 256 pixels per side",
                  "adds an input that is a contiguous prefix of a longer buffer and bilinear rows and columns of "
                  "2100 pixels at scale factor 2",
                  "a kernel that stores one element past the end writes a finite value into the output's guard "
                  "band; source indices above 2048 catch index arithmetic in float16"),
    ),
    layout_case="nearest_down_size",
)
