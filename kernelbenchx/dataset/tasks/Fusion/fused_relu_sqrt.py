"""Fusion/fused_relu_sqrt: square root of the rectified input, optionally rectifying the input in place."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    return torch.sqrt(F.relu(input, inplace=inplace))


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17))
    yield "ramp", Call(torch.linspace(-9.0, 9.0, 1001))
    yield "specials", Call(torch.tensor([float("-inf"), -1e30, -0.0, 0.0, 1e-40, 1e-30, 4.0, 1e30,
                                         float("inf"), float("nan")]))
    yield "inplace", Call(sample((33, 65), gen), True)
    yield "float64", Call(sample((5, 123), gen, dtype=torch.float64))
    yield "int64", Call(randint((257,), gen, -100, 100))
    yield "int64_inplace", Call(randint((7, 19), gen, -50, 50), True)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix_inplace", Call(sample((129, 257), gen, mode), True)
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))
    yield "n2^27_inplace", Call(sample((1 << 27,), gen), True)


TASK = Task(
    id="Fusion/fused_relu_sqrt",
    entry="fused_relu_sqrt",
    signature="fused_relu_sqrt(input: Tensor, inplace: bool = False) -> Tensor",
    description="Computes sqrt(max(0, x)) elementwise and returns it as a new tensor of the input's shape. "
                "When inplace is True, the input itself is first overwritten with its ReLU, max(0, x) "
                "(same dtype as the input), and the square root of that is returned as a new tensor; the "
                "input is never overwritten with the square root. NaN inputs give NaN (ReLU keeps NaN), "
                "-0.0 gives a zero (of either sign) and +inf gives +inf. Floating inputs keep their dtype "
                "(float32, float64); int64 inputs give a float32 result (torch's sqrt of an integer tensor). "
                "The upstream `out=` argument is dropped.",
    math=r"\mathrm{out}_i = \sqrt{\max(0, x_i)}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape (also float64, and int64 giving a float32 output); "
                             "output same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      mutates=(0,),
                      notes="With inplace=True the input must hold max(0, x) afterwards (exactly, in its own "
                            "dtype); with inplace=False it must be left unchanged."),
    flops=elementwise_flops(2),
)
