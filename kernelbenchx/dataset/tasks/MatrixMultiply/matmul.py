"""MatrixMultiply/matmul: torch.matmul on fp32, with its 1-D, 2-D and broadcast-batched forms."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.MatrixMultiply import _precision


def reference(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.matmul(input, other)


def fixed_cases(gen):
    x = sample((37,), gen)  # correlated, so the dot is not a near-cancellation (a relative bound on one number)
    yield "dot", Call(x, x + 0.3 * sample((37,), gen))
    yield "matrix_vector", Call(sample((5, 19), gen), sample((19,), gen))
    yield "vector_matrix", Call(sample((19,), gen), sample((19, 7), gen))
    yield "square", Call(sample((64, 64), gen), sample((64, 64), gen))
    yield "odd", Call(sample((33, 17), gen), sample((17, 65), gen))
    yield "batch_times_matrix", Call(sample((3, 5, 9), gen), sample((9, 6), gen))
    yield "batch_times_vector", Call(sample((10, 3, 4), gen), sample((4,), gen))
    yield "vector_times_batch", Call(sample((4,), gen), sample((2, 4, 3), gen))
    yield "broadcast_batches", Call(sample((2, 1, 7, 5), gen), sample((3, 5, 11), gen))
    yield "inner_one", Call(sample((16, 1), gen), sample((1, 8), gen))
    yield "integers", Call(torch.arange(12.0).reshape(3, 4), torch.arange(20.0).reshape(4, 5) - 10.0)


def random_cases(gen, mode):
    yield "square", Call(sample((256, 256), gen, mode), sample((256, 256), gen, mode))
    yield "odd", Call(sample((129, 255), gen, mode), sample((255, 67), gen, mode))
    yield "batched", Call(sample((4, 97, 131), gen, mode), sample((4, 131, 61), gen, mode))
    yield "batch_broadcast", Call(sample((3, 1, 65, 33), gen, mode), sample((5, 33, 47), gen, mode))


def perf_cases(gen):
    for n in (256, 1024, 2048, 4096):  # rows of upstream's square sweep
        yield f"{n}^3", Call(sample((n, n), gen), sample((n, n), gen))


TASK = Task(
    id="MatrixMultiply/matmul",
    entry="matmul",
    signature="matmul(input: Tensor, other: Tensor) -> Tensor",
    description="Matrix product with torch.matmul semantics: 1-D·1-D gives the dot product (a 0-d tensor); "
                "2-D·2-D the matrix product; 1-D·2-D treats the vector as a row (prepended 1, then removed); "
                "2-D·1-D the matrix-vector product; with either operand of rank ≥ 3 the last two dimensions are "
                "matrices (a 1-D operand is promoted to a matrix and the added dimension removed afterwards) "
                "and the leading (batch) dimensions broadcast. Inner dimensions agree. Output float32, contiguous.",
    math=r"\mathrm{out}_{b,i,j} = \sum_k \mathrm{input}_{b,i,k}\,\mathrm{other}_{b,k,j}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, other float32 (rank 1-4); output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=_precision.REL_RMS),
                      tf32=True, precision=_precision.PRECISION),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1],
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (fp32 products)",
                  "TF32 products allowed: |out − ref| ≤ 1e-2·RMS(ref) + 1e-2·|ref| and relative RMS error ≤ "
                  f"{_precision.REL_RMS:g}",
                  "fp32 GEMMs run on TF32 tensor cores (the catalogue notes torch.matmul supports TensorFloat32; "
                  "Triton's tl.dot defaults to it); the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.COVERAGE, "out= keyword", "no out= argument", "kbx compares returned tensors"),
        Deviation(Kind.PERF, "31 square sizes 256 … 4096, timed in float16",
                  "squares 256, 1024, 2048, 4096 in float32",
                  "the timed inputs have the dtype the task is judged in; fp16 products are "
                  "MatrixMultiply/matmul_fp16's task"),
    ),
)
