"""Math/fftn: the N-dimensional discrete Fourier transform, with padding/trimming, dim selection and norm."""

import math

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.Math._sweep import SUBSET_REASON

NORMS = (None, "backward", "ortho", "forward")


def reference(input: torch.Tensor, s=None, dim=None, norm=None) -> torch.Tensor:
    return torch.fft.fftn(input, s=s, dim=dim, norm=norm)


def complex_sample(shape, gen, mode="standard"):
    return torch.complex(sample(shape, gen, mode), sample(shape, gen, mode))


def fixed_cases(gen):
    yield "1d_pow2", Call(sample((64,), gen))
    yield "1d_odd", Call(sample((45,), gen))
    yield "1d_prime", Call(sample((97,), gen))
    yield "2d", Call(sample((16, 32), gen))
    yield "3d", Call(sample((4, 8, 6), gen))
    yield "complex_2d", Call(complex_sample((10, 10), gen))
    yield "dim_subset", Call(sample((3, 16, 20), gen), dim=(1, 2))
    yield "dim_negative", Call(sample((5, 24), gen), dim=(-1,))
    yield "dim_reordered", Call(sample((6, 8, 5), gen), dim=(2, 0))
    yield "s_pad_trim", Call(sample((12, 10), gen), s=(16, 8))
    yield "s_last_dims", Call(sample((5, 12, 10), gen), s=(8, 15))
    yield "s_keep", Call(sample((9, 12), gen), s=(-1, 16), dim=(0, 1))
    yield "norm_ortho", Call(sample((8, 30), gen), norm="ortho")
    yield "norm_forward", Call(complex_sample((7, 16), gen), norm="forward")
    yield "norm_backward", Call(sample((33,), gen), norm="backward")
    yield "length_one_dim", Call(complex_sample((1, 12), gen), norm="ortho")
    yield "large_prime", Call(sample((2, 257), gen), dim=(1,))  # a prime factor above 64 or 128
    # a length past 2048 that is not a power of two (3003 = 3·7·11·13): stage sizes and twiddle angles beyond
    # fp16's exact integers
    yield "long_odd", Call(complex_sample((2, 3003), gen), dim=(1,), norm="ortho")
    # rank 5, zero-padding a leading dim of a sliced view (the parent's row past the slice must read as zero)
    yield "rank5_pad_slice", Call(sample((4, 3, 2, 2, 6), gen)[:3], s=(8, 5), dim=(4, 0))


def random_cases(gen, mode):
    def pick(options):
        return options[int(torch.randint(len(options), (), generator=gen))]

    def length():
        return pick((7, 12, 16, 30, 45, 64, 97, 100, 128))

    yield "1d_pow2", Call(sample((32_768,), gen, mode), norm=pick(NORMS))
    yield "2d_smooth", Call(sample((96, 160), gen, mode), norm=pick(NORMS))
    yield "batched_2d", Call(complex_sample((8, 64, 128), gen, mode), dim=(-2, -1), norm=pick(NORMS))
    yield "3d_odd", Call(sample((15, 21, 33), gen, mode), norm=pick(NORMS))
    # padding/trimming and dim selection drawn per run
    shape = (length(), length(), 3)
    dims = pick(((0,), (1, 0), (0, 1, 2), (-1, -3)))
    sizes = tuple(pick((-1, 5, 8, 27, 96, 128)) if d % 3 != 2 else -1 for d in dims)
    yield "s_and_dim", Call(complex_sample(shape, gen, mode), s=sizes, dim=dims, norm=pick(NORMS))
    yield "s_only", Call(sample((4, length(), length()), gen, mode), s=(length(), length()), norm=pick(NORMS))


def perf_cases(gen):
    # complex64 1-D signals, as upstream's perf script times fftn
    yield "1d_2^16", Call(complex_sample((1 << 16,), gen))
    yield "1d_2^20", Call(complex_sample((1 << 20,), gen))
    yield "1d_2^23", Call(complex_sample((1 << 23,), gen))


def transformed_size(call: Call, out: torch.Tensor) -> int:
    """Product of the output lengths along the transformed dims (the logical FFT size)."""
    s, dim = call.kwargs.get("s"), call.kwargs.get("dim")
    if dim is None:
        dim = range(out.dim()) if s is None else range(out.dim() - len(s), out.dim())
    return math.prod(out.shape[d] for d in dim)


def flops(call: Call, out: torch.Tensor) -> float:
    size = transformed_size(call, out)
    return 5.0 * out.numel() * math.log2(size) if size > 1 else 0.0


TASK = Task(
    id="Math/fftn",
    entry="fftn",
    signature="fftn(input: Tensor, s: tuple[int, ...] | None = None, dim: tuple[int, ...] | None = None, "
              "norm: str | None = None) -> Tensor",
    description="Returns the N-dimensional discrete Fourier transform of `input` (float32, treated as complex "
                "with zero imaginary part, or complex64) as a new complex64 tensor: "
                "X[k] = Σ_n x[n]·exp(−2πi·Σ_d k_d·n_d/L_d) over the transformed dims. `dim` lists the "
                "transformed dims (negative values count from the end; default: all dims, or the last len(s) "
                "dims when s is given). `s` gives the signal length L_d per transformed dim: each is "
                "zero-padded at the end or trimmed to that length first (−1 keeps the input's length); "
                "default: the input's lengths. Untransformed dims are batch dims. norm: None or 'backward' = "
                "no scaling, 'ortho' = scale by 1/sqrt(Π L_d), 'forward' = scale by 1/Π L_d. The output has the "
                "input's shape with L_d on the transformed dims, and holds all frequencies (no Hermitian "
                "compaction for real input). Lengths need not be powers of two (odd and prime lengths are "
                "tested). (torch's `out=` argument is not part of the task.)",
    math=r"X_{k_1\ldots k_m} = c\sum_{n_1\ldots n_m} x_{n_1\ldots n_m}\,e^{-2\pi i \sum_d k_d n_d / L_d}",
    difficulty=5,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 or complex64; output complex64",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-4, scale="rms"),
                      notes="Real and imaginary parts are compared separately, each with atol = 1e-4 × the RMS "
                            "of that part of the reference: an FFT's rounding error grows with the transform "
                            "length and is spread over all outputs (the float32 reference is ~1.5e-6 × RMS from "
                            "exact at 2^23 points), so a per-element relative bound would be meaningless near "
                            "small coefficients. Any radix or algorithm is fine; twiddle factors should be "
                            "accurate to fp32 (reduce k·n modulo L before forming the angle)."),
    flops=flops,
    unit="fp32",
    choices={"norm": NORMS},
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 0 on complex outputs (an exact match of torch's "
                  "own FFT, i.e. cuFFT's rounding)", "real and imaginary parts each within 1e-5 relative plus "
                  "1e-4 × the RMS of |reference|",
                  "any other FFT algorithm rounds differently; an FFT's rounding error is spread over all outputs "
                  "and grows with the length (the float32 reference is ~1.5e-6 × RMS from exact at 2^23 points), "
                  "so the bound scales with the output's RMS"),
        Deviation(Kind.COVERAGE, "float32 4×4 and 16×16 inputs, s = (2, 2) or (8, 8), dim (0, 1), norm 'ortho'",
                  "float32 and complex64 inputs, 1-D to 5-D, odd, prime, large-prime and long odd lengths, padding and "
                  "trimming through s, dim subsets in any order, length-1 dims, every norm",
                  "the catalogue describes the full torch.fft.fftn interface; power-of-two 4×4 inputs cannot tell "
                  "a radix-2-only kernel from a general one"),
        Deviation(Kind.PERF, "12 complex64 1-D inputs of 2^12 … 2^23 points, times summed",
                  "complex64 1-D inputs of 2^16, 2^20 and 2^23 points", SUBSET_REASON),
    ),
)
