"""SpatialOps/grid_sample: sample a 4-D image at normalized grid positions (nearest, bilinear or bicubic)."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint, sample, uniform

FLOPS_PER_OUTPUT = {"nearest": 2.0, "bilinear": 10.0}
MODES = ("bilinear", "nearest")
PADDINGS = ("zeros", "border", "reflection")


def reference(input: torch.Tensor, grid: torch.Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
              align_corners: bool = False) -> torch.Tensor:
    return F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


def smooth_grid(n, h, w, gen, spill=0.15):
    """Positions uniform over the image plus a margin outside it (exercises the padding)."""
    return uniform((n, h, w, 2), gen, -1.0 - spill, 1.0 + spill)


def nearest_grid(n, h, w, in_h, in_w, gen, align_corners):
    """Pixel coordinates k + j with |j| ≤ 0.35, k in [-3, size + 2): never near a rounding tie, so the chosen
    pixel does not hinge on the last bit of the coordinate arithmetic."""
    def axis(size):
        k = randint((n, h, w), gen, -3, size + 3).float()
        u = k + uniform((n, h, w), gen, -0.35, 0.35)
        return 2 * u / (size - 1) - 1 if align_corners else (2 * u + 1) / size - 1
    return torch.stack([axis(in_w), axis(in_h)], dim=-1)


def case(shape, out_hw, gen, mode="bilinear", padding_mode="zeros", align_corners=False, data_mode="standard"):
    n, _, in_h, in_w = shape
    if mode == "nearest":
        grid = nearest_grid(n, *out_hw, in_h, in_w, gen, align_corners)
    else:
        grid = smooth_grid(n, *out_hw, gen)
    return Call(sample(shape, gen, data_mode), grid, mode, padding_mode, align_corners)


def fixed_cases(gen):
    theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    x = sample((1, 2, 5, 7), gen)
    yield "identity_grid", Call(x, F.affine_grid(theta, [1, 2, 5, 7], align_corners=False))
    yield "identity_grid_aligned", Call(x, F.affine_grid(theta, [1, 2, 5, 7], align_corners=True), "bilinear",
                                        "zeros", True)
    for mode in MODES:
        for pad in PADDINGS:
            for ac in (False, True):
                yield f"{mode}_{pad}{'_aligned' if ac else ''}", case((2, 3, 9, 11), (6, 8), gen, mode, pad, ac)
    yield "far_outside", Call(sample((1, 1, 4, 4), gen), torch.tensor([[[[3.0, -2.5], [-7.0, 0.2], [0.0, 9.0]]]]),
                              "bilinear", "reflection")
    yield "single_pixel_rows", case((2, 2, 1, 6), (3, 5), gen, "bilinear", "border")
    yield "single_pixel_columns_aligned", case((1, 3, 7, 1), (4, 4), gen, "bilinear", "reflection", True)
    # nearest at exact ties: ix = 0.5 … 6.5 (W = 8) and iy = 0.5, 1.5, 2.5 (H = 4), every one exact in float32,
    # so each must round half to even (a tie rule wrong for larger odd neighbours picks the wrong pixel)
    gx = (2.0 * torch.arange(7.0) + 2.0) / 8.0 - 1.0
    gy = (2.0 * torch.arange(3.0) + 2.0) / 4.0 - 1.0
    ties = torch.stack([gx.expand(3, 7), gy[:, None].expand(3, 7)], dim=-1)[None]
    yield "nearest_ties", Call(sample((1, 2, 4, 8), gen), ties, "nearest", "zeros", False)


def pick(options, gen):
    return options[int(torch.randint(len(options), (), generator=gen, device=gen.device))]


def random_cases(gen, mode):
    yield "bilinear_zeros", case((2, 3, 97, 131), (61, 83), gen, data_mode=mode)
    yield "nearest_reflection", case((4, 5, 37, 53), (41, 29), gen, "nearest", "reflection", True, mode)
    yield "bilinear_reflection_aligned", case((3, 16, 31, 45), (33, 35), gen, "bilinear", "reflection", True, mode)
    for i in range(2):
        interp, pad, aligned = pick(MODES, gen), pick(PADDINGS, gen), bool(torch.randint(2, (), generator=gen, device=gen.device))
        yield f"drawn{i}_{interp}_{pad}{'_aligned' if aligned else ''}", case((2, 4, 40, 57), (35, 44), gen, interp,
                                                                               pad, aligned, mode)


def perf_cases(gen):
    for size in (256, 1024, 2048):
        yield f"16x3x{size}x{size}", case((16, 3, size, size), (size // 2, size // 2), gen)


TASK = Task(
    id="SpatialOps/grid_sample",
    entry="grid_sample",
    signature="grid_sample(input: Tensor, grid: Tensor, mode: str = 'bilinear', padding_mode: str = 'zeros', "
              "align_corners: bool = False) -> Tensor",
    description="torch.nn.functional.grid_sample for 4-D input (N, C, H_in, W_in) and grid (N, H_out, W_out, 2); "
                "output (N, C, H_out, W_out). grid[n, h, w] = (x, y) holds normalized positions, x along the width "
                "and y along the height, -1 and 1 being the image's extremes. Unnormalize: align_corners=True: "
                "ix = (x + 1)/2·(W_in − 1) (±1 are the centres of the corner pixels); align_corners=False: "
                "ix = ((x + 1)·W_in − 1)/2 (±1 are the outer edges of the corner pixels); likewise iy with H_in. "
                "padding_mode for positions outside: 'zeros' reads 0 for out-of-range pixels; 'border' clamps the "
                "coordinate to [0, size − 1]; 'reflection' reflects it about the borders (about 0 and size − 1 "
                "when align_corners, about −0.5 and size − 0.5 otherwise, repeatedly) and then clamps it. "
                "mode 'bilinear': weights (1 − fx, fx)×(1 − fy, fy) on the four pixels around the padded "
                "coordinate; 'nearest': the pixel at the padded coordinate rounded half to even ('bicubic' is not "
                "part of this task). Output float32. "
                "The 5-D (volumetric) form is not part of this task; grids hold no NaN.",
    math=r"\mathrm{out}_{n,c,h,w} = \sum_{i,j} k(i_x - i)\,k(i_y - j)\,\mathrm{pad}(x)_{n,c,j,i}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (N, C, H, W), grid float32 (N, H_out, W_out, 2); output float32",
                      tolerance=Tolerance(rtol=1e-3, atol=1e-3, scale="rms"),
                      notes="Tolerance 1e-3 (atol × the output's RMS): the fp32 pixel coordinate carries an error "
                            "of a few units of size × 6e-8, which interpolation multiplies by the local image "
                            "gradient (up to ~10 for noise images; images here are at most 256 pixels wide). "
                            "Nearest-mode test positions stay at least 0.15 pixel away from rounding ties."),
    flops=lambda call, out: FLOPS_PER_OUTPUT.get(call.args[2] if len(call.args) > 2 else "bilinear", 10.0)
    * out.numel(),
    choices={"mode": MODES, "padding_mode": PADDINGS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "|out − ref| ≤ 1e-3·RMS(out) + 1e-3·|ref|",
                  "the fp32 pixel coordinate's rounding (a few units of size × 6e-8) is multiplied by the local "
                  "image gradient, so two correct kernels differ by more than 1e-5 on noise images"),
        Deviation(Kind.PERF, "float32 16×3×(256 … 2048)² sampled at half resolution (4 rows)",
                  "16×3×256², 1024², 2048² at half resolution, bilinear, zero padding",
                  "a subset of upstream's rows spanning its range"),
    ),
)
