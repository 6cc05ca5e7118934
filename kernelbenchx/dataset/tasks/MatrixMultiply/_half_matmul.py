"""Matrix product on half-precision tensors: the float16 and bfloat16 tasks differ only in dtype and tolerance."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample

NAMES = {torch.float16: ("fp16", "float16"), torch.bfloat16: ("bf16", "bfloat16")}


PERF_DEVIATION = Deviation(Kind.PERF, "31 square sizes 256 … 4096", "squares 256, 1024, 2048, 4096",
                           "four rows of upstream's sweep span launch-bound to compute-bound")
# bf16: one ulp is 2⁻⁷ ≈ 7.8e-3 of the value, above upstream's rtol.
BF16_DEVIATION = Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 5e-3", "rtol 1.6e-2, atol 5e-3",
                           "one bf16 ulp is up to 7.8e-3 of the value: where the kernel's fp32 sum and the "
                           "reference's fall on two sides of a rounding boundary, a correct kernel is one ulp off, "
                           "which rtol 5e-3 rejects for every output above about 2 in magnitude")


def half_matmul_task(dtype: torch.dtype, tolerance: Tolerance, deviations: tuple[Deviation, ...]) -> Task:
    short, long = NAMES[dtype]

    def reference(input: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
        return torch.matmul(input, other)

    def pair(a_shape, b_shape, gen, mode="standard"):
        return Call(sample(a_shape, gen, mode, dtype=dtype), sample(b_shape, gen, mode, dtype=dtype))

    def fixed_cases(gen):
        yield "square", pair((64, 64), (64, 64), gen)
        yield "odd", pair((33, 17), (17, 65), gen)
        yield "inner_one", pair((16, 1), (1, 8), gen)
        yield "tall_skinny", pair((300, 5), (5, 3), gen)
        yield "batched", pair((3, 9, 31), (3, 31, 6), gen)
        yield "integers", Call(torch.arange(12.0).reshape(3, 4).to(dtype),
                               (torch.arange(20.0).reshape(4, 5) - 10).to(dtype))
        yield "large_values", Call((100 * sample((8, 64), gen)).to(dtype), (100 * sample((64, 8), gen)).to(dtype))

    def random_cases(gen, mode):
        yield "square", pair((256, 256), (256, 256), gen, mode)
        yield "odd", pair((129, 255), (255, 67), gen, mode)
        yield "batched", pair((4, 97, 131), (4, 131, 61), gen, mode)

    def perf_cases(gen):
        for n in (256, 1024, 2048, 4096):
            yield f"{n}^3", pair((n, n), (n, n), gen)

    return Task(
        id=f"MatrixMultiply/matmul_{short}",
        entry=f"matmul_{short}",
        signature=f"matmul_{short}(input: Tensor, other: Tensor) -> Tensor",
        description=f"Matrix product of {long} tensors like torch.matmul: (M, K) @ (K, N) -> (M, N), or batched "
                    "(B, M, K) @ (B, K, N) -> (B, M, N). Products are accumulated in float32 and the result is "
                    f"rounded to {long} once at the end. Inputs and output are {long}; the output is contiguous.",
        math=rf"\mathrm{{out}}_{{ij}} = \mathrm{{round}}_{{\mathrm{{{short}}}}}\Big(\sum_k a_{{ik}} b_{{kj}}\Big)"
             r"\ \text{(fp32 sum)}",
        difficulty=2,
        reference=reference,
        fixed_cases=fixed_cases,
        random_cases=random_cases,
        perf_cases=perf_cases,
        contract=Contract(dtypes=f"input, other {long} (2-D or 3-D); output {long}",
                          tolerance=tolerance,
                          notes=f"A different fp32 summation order may round an output to the neighbouring {short} "
                                "value; the tolerance admits that one-ulp difference."),
        flops=lambda call, out: 2.0 * out.numel() * call.args[0].shape[-1],
        unit=short,
        deviations=deviations,
    )
