"""Math/chebyshev_polynomial_t: the Chebyshev polynomial of the first kind T_n(x), elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample, uniform
from kernelbenchx.dataset.tasks.Math._sweep import SUBSET_REASON


def reference(input: torch.Tensor, n) -> torch.Tensor:
    return torch.special.chebyshev_polynomial_t(input, n)


def degree(gen, low: int, high: int) -> int:
    return int(randint((), gen, low, high + 1))


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    x = torch.linspace(-2.0, 2.0, 401)
    for n in (0, 1, 2, 5, 6, 7, 11):
        yield f"ramp_n{n}", Call(x, n)
    yield "unit_interval_n24", Call(torch.linspace(-1.0, 1.0, 1001), 24)
    # n = 32 magnifies an acos a few ulps off (e.g. an inexact polynomial coefficient) past the tolerance
    yield "unit_interval_n32", Call(torch.linspace(-1.0, 1.0, 4001), 32)
    # degrees beyond fp16's exact integers (2048) and range (65504), at x just below 1 where n·acos(x) stays
    # small (≤ 50), so fp32 evaluation of cos(n·acos(x)) stays well inside the tolerance
    yield "high_degree", Call((1.0 - torch.arange(1, 5, dtype=torch.float32) * 2.0 ** -24).reshape(4, 1),
                              torch.tensor([[2049, 2051, 3001, 4097, 4099, 8191, 12289, 16385, 65521, 70001]]))
    yield "endpoints", Call(torch.tensor([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, 0.0, 0.0]),
                            torch.tensor([3, 3, 8, 8, 0, 13, 9, 10]))
    yield "negative_degree", Call(torch.tensor([0.5, -1.0, 3.0, nan]), torch.tensor([-1, -1, -2, -5]))
    yield "nonfinite", Call(torch.tensor([nan, inf, -inf, nan, inf, -inf]), torch.tensor([0, 0, 1, 1, 2, 2]))
    yield "large_x", Call(torch.tensor([3.0, -3.0, 10.0, -10.0, 1.0001, -1.0001]), 12)
    yield "per_element", Call(sample((257,), gen), randint((257,), gen, 0, 17))
    yield "broadcast", Call(sample((5, 1), gen), torch.arange(0, 14, 2).reshape(1, 7))
    yield "negative_int_degree", Call(sample((9,), gen), -2)
    yield "degree_0d_tensor", Call(sample((3, 11), gen), torch.tensor(9))
    yield "empty", Call(torch.zeros(0, 3), 4)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), randint((2, 1, 5), gen, 0, 17))
    # rank 5, both operands broadcast; input a transposed (non-contiguous) view
    yield "broadcast_5d", Call(sample((2, 6, 3, 1, 5), gen).transpose(1, 3),
                               randint((1, 4, 1, 6, 1), gen, 0, 17))


def random_cases(gen, mode):
    yield "trig_degree", Call(sample((65_537,), gen, mode), degree(gen, 7, 16))
    yield "low_degree", Call(sample((129, 257), gen, mode), degree(gen, 2, 6))
    yield "per_element", Call(sample((4, 31, 127), gen, mode), randint((4, 31, 127), gen, 0, 17))


def perf_cases(gen):
    yield "n2^16_deg3", Call(uniform((1 << 16,), gen), 3)
    yield "n2^24_deg12", Call(sample((1 << 24,), gen), 12)
    yield "n2^27_deg3", Call(uniform((1 << 27,), gen), 3)
    yield "n2^26_per_element", Call(sample((1 << 26,), gen), randint((1 << 26,), gen, 0, 17))


TASK = Task(
    id="Math/chebyshev_polynomial_t",
    entry="chebyshev_polynomial_t",
    signature="chebyshev_polynomial_t(input: Tensor, n: int | Tensor) -> Tensor",
    description="Returns T_n(x), the Chebyshev polynomial of the first kind of degree n, for every element x of "
                "the float32 `input`. `n` is a Python int or an int64 tensor of degrees that broadcasts with "
                "input; the result is float32 with the broadcast shape. Follow torch's evaluation exactly, per "
                "element: if n < 0 the result is 0; else if |x| = 1 it is 1 when x > 0 or n is even and −1 "
                "otherwise; else if n > 6 and |x| < 1 it is cos(n·acos(x)); else if n = 0 it is 1 (even for "
                "NaN or infinite x); else if n = 1 it is x; otherwise run the recurrence T_0 = 1, T_1 = x, "
                "T_(k+1) = 2x·T_k − T_(k−1) up to k = n (so NaN propagates and infinite x may give inf or NaN "
                "as IEEE arithmetic dictates). (torch's `out=` argument is not part of the task.)",
    math=r"T_0 = 1,\; T_1 = x,\; T_{k+1}(x) = 2x\,T_k(x) - T_{k-1}(x);\quad T_n(x) = \cos(n \arccos x)\ (|x| < 1)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; n a Python int or int64 tensor; output float32, broadcast shape",
                      tolerance=Tolerance(rtol=1e-5, atol=2e-5),
                      notes="atol is 2e-5 rather than 1e-5: for |x| < 1 and n > 6 the fp32 value of "
                            "cos(n·acos(x)) carries n times the rounding error of acos (the reference's own "
                            "error reaches ~4e-6 at n = 16 and ~7e-6 at n = 24 and 32; higher degrees are "
                            "tested only at x next to 1, where n·acos(x) stays small)."),
    flops=elementwise_flops(20),
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "rtol 1e-5, atol 2e-5",
                  "for |x| < 1 and n > 6 the float32 cos(n·acos(x)) carries n times the rounding error of acos: "
                  "the reference's own error reaches ~7e-6 at n = 24"),
        Deviation(Kind.COVERAGE, "x in [-1, 1] (clamped N(0, 1)) with n = 0, 1, 2, 3, 5 and 10 as Python ints",
                  "adds |x| > 1, ±inf and NaN, negative n, n as an int64 tensor broadcasting with x (the catalogue "
                  "documents n as a tensor), degrees up to 32 (up to 70001 next to x = 1), empty tensors, rank 4 "
                  "and 5 broadcasts",
                  "torch.special.chebyshev_polynomial_t defines every one of these; its per-branch rules "
                  "(n < 0, |x| = 1, n > 6 with |x| < 1, recurrence) are where kernels go wrong"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        Deviation(Kind.PERF, "16 1-D inputs of 2^12 … 2^27 elements in U[0, 1), n = 3, times summed",
                  "2^16 and 2^27 elements in U[0, 1) with n = 3 as upstream, 2^24 N(0, 1) values with n = 12 "
                  "(both the cos and the recurrence branch) and 2^26 values with per-element degrees",
                  SUBSET_REASON + "; the other two cases time the branches upstream never reaches"),
    ),
)
