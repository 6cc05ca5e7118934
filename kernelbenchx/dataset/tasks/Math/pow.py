"""Math/pow: elementwise power with a scalar or a (broadcast) tensor exponent."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

# torch.pow takes its own paths for these Python-number exponents (x·x, x·x·x, sqrt, 1/sqrt, 1/x, 1/(x·x),
# ones, a copy); the random stage draws them and general ones
SCALAR_EXPONENTS = (2, 3, 0.5, -0.5, -1, -2, 0, 1, 2.5, -2.7, 1.0 / 3.0, 4)


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
    yield "broadcast_4d", Call(positive((3, 1, 4, 5), gen), sample((2, 1, 5), gen))
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(positive((2, 6, 3, 1, 5), gen).transpose(1, 3), sample((1, 4, 1, 6, 1), gen))
    edges = torch.tensor([-0.0, 0.0, -inf, inf, nan, -2.0, 2.0, -8.0, 0.5, -0.5])
    for e in SCALAR_EXPONENTS:
        yield f"edges_exp{e:.3g}", Call(edges, e)
    yield "edges_tensor_exp", Call(edges, torch.tensor([-0.5, -1.0, 0.5, 2.5, 0.0, inf, -inf, 3.0, nan, inf]))
    # powf's unit bases and infinite exponents: 1^y = 1 (NaN too), (−1)^±inf = 1, |x| < 1 or > 1 to ±inf
    yield "unit_bases_infinite_exp", Call(torch.tensor([-1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 0.5, 0.5, 2.0, 2.0, -0.5]),
                                          torch.tensor([inf, -inf, nan, inf, -inf, 3.0, inf, -inf, inf, -inf, -inf]))


def random_cases(gen, mode):
    picks = torch.randperm(len(SCALAR_EXPONENTS), generator=gen)[:2].tolist()
    integral = [e for e in SCALAR_EXPONENTS if float(e).is_integer()]
    yield "scalar_exp", Call(positive((65_537,), gen, mode), SCALAR_EXPONENTS[picks[0]])
    yield "scalar_exp_positive", Call(positive((3, 1001), gen, mode), SCALAR_EXPONENTS[picks[1]])
    # mixed signs need an integral exponent to stay real
    yield "scalar_exp_mixed", Call(sample((999,), gen, mode),
                                   integral[int(torch.randint(len(integral), (), generator=gen))])
    # negative bases with integral exponents: the sign follows the exponent's parity
    yield "negative_base_integer_exp", Call(-positive((31, 67), gen, mode),
                                            randint((31, 67), gen, -6, 7).float())
    yield "tensor_exp", Call(positive((129, 257), gen, mode), sample((129, 257), gen))
    yield "fractional_exp", Call(positive((4, 31, 127), gen, mode), -2.7)
    yield "broadcast_exp", Call(positive((31, 127), gen, mode), sample((127,), gen) * 3)


def perf_cases(gen):
    yield "n2^16_exp2", Call(positive((1 << 16,), gen), 2)
    yield "n2^24_exp2.5", Call(positive((1 << 24,), gen), 2.5)
    yield "n2^27_exp2", Call(positive((1 << 27,), gen), 2)


TASK = Task(
    id="Math/pow",
    entry="pow",
    signature="pow(input: Tensor, exponent: Tensor | float | int) -> Tensor",
    description="Returns input ** exponent elementwise as a new tensor. `exponent` is a Python number (applied "
                "to every element) or a tensor that broadcasts with `input`; the result has the broadcast shape "
                "and float32 dtype. Semantics of C's powf: a negative base with an integral exponent gives the "
                "signed power ((-2)^3 = -8), a negative base with a non-integral exponent gives NaN, x^0 = 1 for "
                "every x (NaN included), 1^y = 1 for every y (NaN included), (−1)^±inf = 1, 0^y = +inf for "
                "y < 0 (−inf for -0 and an odd negative integer y), inf^y = 0 for y < 0. "
                "For the Python-number exponents 2, 3, 0.5, -0.5, -1 and -2 torch computes "
                "x·x, x·x·x, sqrt(x), 1/sqrt(x), 1/x and 1/(x·x), and the results follow those (e.g. (−inf)^0.5 "
                "= NaN and (−0)^−0.5 = −inf); exponent 0 gives ones and 1 a copy. (torch's `out=` argument is "
                "not part of the task.)",
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
    deviations=(sweep_subset("1-D inputs of 2^16 and 2^27 elements with exponent 2 and of 2^24 elements with "
                             "exponent 2.5",
                             upstream="16 fp32 1-D inputs of 2^12 … 2^27 elements with a Python-number exponent, "
                                      "times summed",
                             extra_reason="exponent 2 is the catalogue's example, 2.5 times the general path; "
                                          "bases are |N(0,1)| + 0.5 so every result is finite"),),
)
