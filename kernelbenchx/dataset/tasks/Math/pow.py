"""Math/pow: elementwise power with a scalar or a (broadcast) tensor exponent."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, exponent) -> torch.Tensor:
    return torch.pow(input, exponent)


def positive(shape, gen, mode="standard"):
    return sample(shape, gen, mode).abs() + 0.5


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "square", Call(sample((1000,), gen) * 3, 2)
    yield "cube_negative_base", Call(torch.tensor([-2.0, -1.5, -0.5, 0.0, 0.5, 3.0]), 3)
    yield "sqrt_exponent", Call(torch.tensor([4.0, 2.0, 0.0, -1.0, inf, 0.25]), 0.5)
    yield "negative_exponent", Call(torch.tensor([4.0, 2.0, 0.0, -0.0, -2.0, inf, 0.25]), -1.5)
    yield "zero_exponent", Call(torch.tensor([0.0, -3.0, inf, nan, 2.0]), 0.0)
    yield "tensor_exponent", Call(torch.arange(1.0, 5.0), torch.arange(1.0, 5.0))
    # negative bases: integral exponents give signed results, non-integral ones NaN
    yield "negative_base_tensor", Call(torch.tensor([-2.0, -2.0, -2.0, -2.0, -8.0, -0.5, 0.0, 0.0]),
                                       torch.tensor([2.0, 3.0, -1.0, 0.5, 1.0 / 3.0, -3.0, -1.0, 0.0]))
    yield "broadcast", Call(positive((7, 1), gen), sample((1, 33), gen))


def random_cases(gen, mode):
    yield "scalar_exp", Call(sample((65_537,), gen, mode), 2)
    yield "tensor_exp", Call(positive((129, 257), gen, mode), sample((129, 257), gen))
    yield "fractional_exp", Call(positive((4, 31, 127), gen, mode), -2.7)
    yield "broadcast_exp", Call(positive((31, 127), gen, mode), sample((127,), gen) * 3)


def perf_cases(gen):
    yield "n2^16_tensor_exp", Call(positive((1 << 16,), gen), sample((1 << 16,), gen))
    yield "n2^24_scalar_exp", Call(positive((1 << 24,), gen), 2.5)
    yield "n2^27_tensor_exp", Call(positive((1 << 27,), gen), sample((1 << 27,), gen))


TASK = Task(
    id="Math/pow",
    entry="pow",
    signature="pow(input: Tensor, exponent: Tensor | float | int) -> Tensor",
    description="Returns input ** exponent elementwise as a new tensor. `exponent` is a Python number (applied "
                "to every element) or a tensor that broadcasts with `input`; the result has the broadcast shape "
                "and float32 dtype. Semantics of C's powf: a negative base with an integral exponent gives the "
                "signed power ((-2)^3 = -8), a negative base with a non-integral exponent gives NaN, x^0 = 1 for "
                "every x (NaN included), 0^y = +inf for y < 0 (−inf for -0 and an odd negative integer y), "
                "inf^y = 0 for y < 0. (torch's `out=` argument is not part of the task.)",
    math=r"\text{out}_i = x_i^{\,y_i}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; exponent float32 tensor or Python float/int; output float32, "
                             "broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(3),
)
