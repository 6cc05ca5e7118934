"""GELU on half-precision tensors: the float16 and bfloat16 tasks differ only in dtype, specials, tolerance and
their deviation records."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample

NAMES = {torch.float16: ("fp16", "float16"), torch.bfloat16: ("bf16", "bfloat16")}
APPROXIMATE = ("none", "tanh")


def half_gelu_task(dtype: torch.dtype, specials: list[float], tolerance: Tolerance, large_values_note: str,
                   deviations: tuple[Deviation, ...]) -> Task:
    short, long = NAMES[dtype]

    def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
        return gelu(input, approximate)

    def fixed_cases(gen):
        yield "zeros", Call(torch.zeros(17, dtype=dtype))
        yield "empty", Call(torch.zeros(0, dtype=dtype))
        yield "ramp", Call(torch.linspace(-8.0, 8.0, 1001).to(dtype))
        yield "ramp_tanh", Call(torch.linspace(-8.0, 8.0, 1001).to(dtype), approximate="tanh")
        yield "specials", Call(torch.tensor(specials, dtype=dtype))
        yield "specials_tanh", Call(torch.tensor(specials, dtype=dtype), "tanh")
        yield "matrix", Call(sample((33, 65), gen, dtype=dtype))
        yield "unit_dims_tanh", Call(sample((1, 257, 1), gen, dtype=dtype) * 3, "tanh")

    def random_cases(gen, mode):
        drawn = APPROXIMATE[int(torch.randint(2, (), generator=gen))]
        yield "vector", Call(sample((65_537,), gen, mode, dtype=dtype))
        yield "matrix_tanh", Call(sample((129, 257), gen, mode, dtype=dtype), approximate="tanh")
        yield "batch", Call(sample((4, 31, 127), gen, mode, dtype=dtype) * 3, approximate=drawn)

    def perf_cases(gen):
        yield "n2^16", Call(sample((1 << 16,), gen, dtype=dtype))
        yield "n2^24", Call(sample((1 << 24,), gen, dtype=dtype))
        yield "n2^27", Call(sample((1 << 27,), gen, dtype=dtype))
        yield "n2^27_tanh", Call(sample((1 << 27,), gen, dtype=dtype), approximate="tanh")

    return Task(
        id=f"Activation/gelu_{short}",
        entry=f"gelu_{short}",
        signature=f"gelu_{short}(input: Tensor, approximate: str = 'none') -> Tensor",
        description=f"Applies GELU elementwise to a {long} tensor and returns a {long} tensor of the same shape. "
                    "approximate='none' gives x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (Φ the standard normal CDF); "
                    "approximate='tanh' gives 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Compute in float32 "
                    f"and round the result to {long} once{large_values_note}. Special values: GELU(+inf) = +inf, "
                    "GELU(-inf) = NaN (-inf·Φ(-inf) is -inf·0), NaN stays NaN, and large negative finite inputs "
                    "give (-)0.",
        math=r"\mathrm{GELU}(x) = x\,\Phi(x) = \tfrac{x}{2}\left(1 + \mathrm{erf}(x/\sqrt{2})\right)",
        difficulty=1,
        reference=reference,
        fixed_cases=fixed_cases,
        random_cases=random_cases,
        perf_cases=perf_cases,
        contract=Contract(dtypes=f"input {long} of any shape; output {long}, same shape",
                          tolerance=tolerance,
                          notes=f"Internal math in float32 (as torch does); input and output stay {long}."),
        flops=elementwise_flops(8),
        unit=short,
        choices={"approximate": APPROXIMATE},
        deviations=deviations,
    )
