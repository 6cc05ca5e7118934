"""MatrixMultiply/addmm: beta·input + alpha·(mat1 @ mat2), with `input` broadcast to the product's shape."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(input: torch.Tensor, mat1: torch.Tensor, mat2: torch.Tensor, *, beta=1, alpha=1) -> torch.Tensor:
    return torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def case(n, k, m, gen, mode="standard", bias_shape=None, **scales):
    bias = sample(bias_shape if bias_shape is not None else (n, m), gen, mode)
    return Call(bias, sample((n, k), gen, mode), sample((k, m), gen, mode), **scales)


def fixed_cases(gen):
    yield "example", case(2, 3, 3, gen)
    yield "square", case(64, 64, 64, gen)
    yield "odd_scaled", case(33, 17, 65, gen, beta=0.5, alpha=-2.0)
    yield "bias_row", case(31, 40, 9, gen, bias_shape=(9,), alpha=0.25)
    yield "bias_column", case(12, 5, 20, gen, bias_shape=(12, 1), beta=2.0)
    yield "bias_scalar", case(7, 8, 9, gen, bias_shape=(1, 1))
    yield "alpha_zero", case(16, 16, 16, gen, alpha=0.0, beta=1.5)
    yield "beta_zero_ignores_nan", Call(torch.full((4, 6), float("nan")), sample((4, 3), gen), sample((3, 6), gen),
                                        beta=0)
    yield "beta_zero_ignores_inf", Call(torch.full((6,), float("inf")), sample((5, 8), gen), sample((8, 6), gen),
                                        beta=0.0, alpha=3.0)


def random_cases(gen, mode):
    yield "square", case(256, 256, 256, gen, mode)
    yield "odd_scaled", case(129, 255, 67, gen, mode, beta=0.7, alpha=1.3)
    yield "bias_row", case(201, 97, 253, gen, mode, bias_shape=(253,), beta=-1.0, alpha=0.5)


def perf_cases(gen):
    for n in (256, 1024, 2048, 4096):  # rows of upstream's square sweep (full (n, n) input, default scales)
        yield f"{n}^3", case(n, n, n, gen)


TASK = Task(
    id="MatrixMultiply/addmm",
    entry="addmm",
    signature="addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor",
    description="Returns beta·input + alpha·(mat1 @ mat2) like torch.addmm, for mat1 of shape (n, m) and mat2 of "
                "shape (m, p). `input` broadcasts to (n, p) (shapes (n, p), (p,), (n, 1), (1, 1), ...). When "
                "beta == 0, `input` is ignored entirely: NaN or inf in it must not reach the output. "
                "Output float32 of shape (n, p), contiguous. The out= argument is not supported.",
    math=r"\mathrm{out} = \beta\,\mathrm{input} + \alpha\,(\mathrm{mat1}\,\mathrm{mat2})",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, mat1, mat2 float32; output float32 (n, p)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=_precision.REL_RMS),
                      tf32=True, precision=_precision.PRECISION),
    flops=lambda call, out: 2.0 * out.numel() * call.args[1].shape[1] + 2.0 * out.numel(),
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32 products)",
                  "TF32 products allowed: |out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and relative RMS error ≤ "
                  f"{_precision.REL_RMS:g}",
                  "fp32 GEMMs run on TF32 tensor cores (the catalogue notes torch.addmm supports TensorFloat32; "
                  "Triton's tl.dot defaults to it); the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.COVERAGE, "out= keyword", "no out= argument", "kbx compares returned tensors"),
        Deviation(Kind.PERF, "31 square sizes 256 … 4096, timed in float16",
                  "squares 256, 1024, 2048, 4096 in float32",
                  "the timed inputs have the dtype the task is judged in"),
    ),
)
