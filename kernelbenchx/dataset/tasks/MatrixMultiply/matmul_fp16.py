"""MatrixMultiply/matmul_fp16: matrix product with float16 inputs and output and fp32 accumulation."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample

DT = torch.float16


def reference(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.matmul(input, other)


def pair(a_shape, b_shape, gen, mode="standard"):
    return Call(sample(a_shape, gen, mode, dtype=DT), sample(b_shape, gen, mode, dtype=DT))


def fixed_cases(gen):
    yield "square", pair((64, 64), (64, 64), gen)
    yield "odd", pair((33, 17), (17, 65), gen)
    yield "inner_one", pair((16, 1), (1, 8), gen)
    yield "tall_skinny", pair((300, 5), (5, 3), gen)
    yield "batched", pair((3, 9, 31), (3, 31, 6), gen)
    yield "integers", Call(torch.arange(12.0).reshape(3, 4).to(DT), (torch.arange(20.0).reshape(4, 5) - 10).to(DT))
    yield "large_values", Call((100 * sample((8, 64), gen)).to(DT), (100 * sample((64, 8), gen)).to(DT))


def random_cases(gen, mode):
    yield "square", pair((256, 256), (256, 256), gen, mode)
    yield "odd", pair((129, 255), (255, 67), gen, mode)
    yield "batched", pair((4, 97, 131), (4, 131, 61), gen, mode)


def perf_cases(gen):
    yield "256^3", pair((256, 256), (256, 256), gen)
    yield "1024^3", pair((1024, 1024), (1024, 1024), gen)
    yield "4096^3", pair((4096, 4096), (4096, 4096), gen)
    yield "8192^3", pair((8192, 8192), (8192, 8192), gen)


TASK = Task(
    id="MatrixMultiply/matmul_fp16",
    entry="matmul_fp16",
    signature="matmul_fp16(input: Tensor, other: Tensor) -> Tensor",
    description="Matrix product of float16 tensors like torch.matmul: (M, K) @ (K, N) -> (M, N), or batched "
                "(B, M, K) @ (B, K, N) -> (B, M, N). Products are accumulated in float32 and the result is "
                "rounded to float16 once at the end. Inputs and output are float16; the output is contiguous.",
    math=r"\mathrm{out}_{ij} = \mathrm{round}_{\mathrm{fp16}}\Big(\sum_k a_{ik} b_{kj}\Big)\ \text{(fp32 sum)}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input, other float16 (2-D or 3-D); output float16",
                      tolerance=Tolerance(rtol=5e-3, atol=5e-3, scale="rms"),
                      notes="The atol is scaled by the output's RMS: the final fp16 rounding and the library's "
                            "reduction order give errors proportional to the magnitude of the sums."),
    flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1],
    unit="fp16",
)
