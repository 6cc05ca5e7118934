"""SpatialOps/grid_sample_with_affine: warp a 4-D image by per-sample 2-D affine maps (affine_grid + grid_sample)."""

import math

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample, uniform

FLOPS_PER_OUTPUT = {"nearest": 2.0, "bilinear": 10.0, "bicubic": 50.0}
MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


def reference(input: torch.Tensor, theta: torch.Tensor, size, mode: str = "bilinear", padding_mode: str = "zeros",
              align_corners: bool = False) -> torch.Tensor:
    grid = F.affine_grid(theta, list(size), align_corners=align_corners)
    return F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


def random_theta(n, gen):
    """Rotation, anisotropic scale, shear and translation: generic positions for the smooth modes."""
    angle = uniform((n,), gen, -math.pi, math.pi)
    scale = uniform((n, 2), gen, 0.6, 1.4)
    shear = uniform((n,), gen, -0.3, 0.3)
    shift = uniform((n, 2), gen, -0.3, 0.3)
    c, s = torch.cos(angle), torch.sin(angle)
    a = torch.stack([c * scale[:, 0], -s * scale[:, 1] + shear, shift[:, 0]], -1)
    b = torch.stack([s * scale[:, 0], c * scale[:, 1], shift[:, 1]], -1)
    return torch.stack([a, b], 1)


def lattice_theta(n, gen):
    """Flips, transposes and 2x zooms about the centre: on a square image whose side is a multiple of 4, warped
    to its own size, they put every nearest-mode sample on a pixel centre or a quarter pixel from one, far
    from rounding ties."""
    pick = randint((n,), gen, 0, 6)
    table = torch.tensor([[[1.0, 0, 0], [0, 1, 0]], [[-1.0, 0, 0], [0, 1, 0]], [[1.0, 0, 0], [0, -1, 0]],
                          [[0, 1.0, 0], [1, 0, 0]], [[0.5, 0, 0], [0, 0.5, 0]], [[0, -0.5, 0], [0.5, 0, 0]]],
                         device=gen.device)
    return table[pick]


def case(shape, out_hw, gen, mode="bilinear", padding_mode="zeros", align_corners=False, data_mode="standard"):
    n, c = shape[:2]
    if mode == "nearest":
        assert shape[2] == shape[3] == out_hw[0] == out_hw[1] and shape[2] % 4 == 0, "see lattice_theta"
    theta = lattice_theta(n, gen) if mode == "nearest" else random_theta(n, gen)
    return Call(sample(shape, gen, data_mode), theta, (n, c, *out_hw), mode, padding_mode, align_corners)


def fixed_cases(gen):
    identity = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    yield "example_identity_downsample", Call(sample((1, 3, 64, 64), gen), identity, (1, 3, 32, 32))
    yield "identity_same_size", Call(sample((2, 2, 5, 7), gen), identity.expand(2, 2, 3).contiguous(), (2, 2, 5, 7))
    for mode in MODES:
        for pad in PADDINGS:
            for ac in (False, True):
                shape, out_hw = ((2, 3, 12, 12), (12, 12)) if mode == "nearest" else ((2, 3, 12, 16), (8, 12))
                yield f"{mode}_{pad}{'_aligned' if ac else ''}", case(shape, out_hw, gen, mode, pad, ac)
    yield "shift_outside", Call(sample((1, 1, 6, 6), gen), torch.tensor([[[1.0, 0.0, 1.5], [0.0, 1.0, -0.8]]]),
                                (1, 1, 6, 6), "bilinear", "border")
    # an input and an output axis of size 1 (affine_grid puts a size-1 axis at 0, reflection of a size-1 axis
    # gives 0) with x reflected from outside both borders
    yield "size_one_axes_reflection_aligned", Call(sample((1, 2, 1, 9), gen),
                                                   torch.tensor([[[1.6, 0.0, 1.3], [0.0, 1.0, 0.0]]]), (1, 2, 1, 7),
                                                   "bilinear", "reflection", True)
    yield "output_row_of_one_aligned", Call(sample((1, 2, 4, 9), gen), torch.tensor([[[1.0, 0.0, 0.0], [0.0, 0.7, 0.1]]]),
                                            (1, 2, 1, 7), "bilinear", "zeros", True)
    # wider than float16 holds exactly (2051), bicubic taps reflected past the far border: an axis length kept in a
    # narrower type moves every sample, and a wrong reflection span is off by whole pixels at this width
    yield "wide_2051_bicubic_reflection_aligned", Call(sample((1, 1, 2, 2051), gen),
                                                       torch.tensor([[[1.003, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
                                                       (1, 1, 2, 2051), "bicubic", "reflection", True)


def pick(options, gen):
    return options[int(torch.randint(len(options), (), generator=gen, device=gen.device))]


def random_cases(gen, mode):
    yield "bilinear_zeros", case((2, 3, 97, 131), (61, 83), gen, data_mode=mode)
    yield "nearest_reflection", case((4, 5, 52, 52), (52, 52), gen, "nearest", "reflection", True, mode)
    yield "bicubic_border", case((1, 8, 64, 64), (47, 71), gen, "bicubic", "border", False, mode)
    yield "bilinear_reflection_aligned", case((3, 16, 31, 45), (33, 35), gen, "bilinear", "reflection", True, mode)
    yield "nearest_zeros", case((3, 7, 36, 36), (36, 36), gen, "nearest", "zeros", False, mode)
    for i in range(2):
        interp, pad = pick(MODES, gen), pick(PADDINGS, gen)
        aligned = bool(torch.randint(2, (), generator=gen, device=gen.device))
        shape, out_hw = ((2, 3, 40, 40), (40, 40)) if interp == "nearest" else ((2, 3, 41, 57), (37, 45))
        yield f"drawn{i}_{interp}_{pad}{'_aligned' if aligned else ''}", case(shape, out_hw, gen, interp, pad,
                                                                               aligned, mode)


def perf_cases(gen):
    for size in (128, 512, 1024):
        yield f"1x3x256x256_to_{size}", case((1, 3, 256, 256), (size, size), gen)


TASK = Task(
    id="SpatialOps/grid_sample_with_affine",
    entry="grid_sample_with_affine",
    signature="grid_sample_with_affine(input: Tensor, theta: Tensor, size: tuple[int, int, int, int], "
              "mode: str = 'bilinear', padding_mode: str = 'zeros', align_corners: bool = False) -> Tensor",
    description="Warps input (N, C, H_in, W_in) with per-sample affine maps theta (N, 2, 3): first "
                "grid = torch.nn.functional.affine_grid(theta, size, align_corners), i.e. for each output pixel "
                "(h, w) of size = (N, C, H_out, W_out) its normalized base position b = (x_w, y_h, 1), with "
                "x_w = (2w + 1)/W_out − 1 when align_corners=False or −1 + 2w/(W_out − 1) when True (likewise y_h; "
                "a size-1 axis gives 0), is mapped to (x, y) = theta[n] · b; then torch.nn.functional.grid_sample"
                "(input, grid, mode, padding_mode, align_corners): (x, y) are unnormalized to pixel coordinates "
                "(align_corners=True: (x + 1)/2·(W_in − 1); False: ((x + 1)·W_in − 1)/2), positions outside are "
                "handled by padding_mode ('zeros': 0 outside; 'border': clamp the coordinate; 'reflection': "
                "reflect it about the borders, about 0 and size − 1 when align_corners, about −0.5 and "
                "size − 0.5 otherwise, then clamp), and the value is interpolated with 'bilinear', 'nearest' "
                "(round half to even) or 'bicubic' (cubic convolution A = −0.75 on the unpadded coordinate's 4×4 "
                "neighbours, each tap index padded on its own). Returns a new float32 (N, C, H_out, W_out) tensor.",
    math=r"(x, y)^\top = \theta_n (x_w, y_h, 1)^\top;\quad \mathrm{out}_{n,c,h,w} = \mathrm{interp}(\mathrm{input}_{n,c}, x, y)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (N, C, H, W), theta float32 (N, 2, 3), size a tuple of 4 ints; "
                             "output float32",
                      tolerance=Tolerance(rtol=1e-3, atol=1e-3, scale="rms"),
                      notes="Tolerance 1e-3 (atol × the output's RMS): fp32 grid and pixel coordinates carry "
                            "errors of a few units of size × 6e-8, which interpolation multiplies by the local "
                            "image gradient (images here are at most 256 pixels wide). Nearest-mode tests use "
                            "maps that keep samples away from rounding ties."),
    flops=lambda call, out: (FLOPS_PER_OUTPUT.get(call.args[3] if len(call.args) > 3 else "bilinear", 10.0) + 4.0)
    * out.numel(),
    choices={"mode": MODES, "padding_mode": PADDINGS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|out − ref| ≤ 1e-3·RMS(out) + 1e-3·|ref|",
                  "the fp32 grid and pixel coordinates' rounding (a few units of size × 6e-8) is multiplied by "
                  "the local image gradient, so two correct kernels differ by more than 1e-5 on noise images"),
        Deviation(Kind.PERF, "1×3×256² warped to (32 … 1024)² (6 rows)", "1×3×256² warped to 128², 512², 1024², "
                  "bilinear, zero padding", "a subset of upstream's rows; below 128² outputs the timing is launch "
                  "overhead"),
    ),
)
