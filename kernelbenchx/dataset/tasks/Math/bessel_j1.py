"""Math/bessel_j1: the Bessel function of the first kind of order 1, elementwise."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.special.bessel_j1(input)


def fixed_cases(gen):
    inf, nan = float("inf"), float("nan")
    yield "zeros", Call(torch.zeros(9))
    yield "empty", Call(torch.zeros(0))
    yield "unit_dims", Call(sample((1, 129, 1), gen) * 3)
    yield "ramp", Call(torch.linspace(-30.0, 30.0, 3001))
    yield "tiny", Call(torch.tensor([1e-30, -1e-20, 1e-8, -1e-4, 0.01]))
    yield "near_roots", Call(torch.tensor([3.8317059, -3.8317059, 7.0155867, 10.1734681, 5.0, -5.0, 25.0]))
    yield "large", Call(torch.tensor([100.0, -250.0, 1000.0, -4321.5, 10000.0]))
    yield "nonfinite", Call(torch.tensor([inf, -inf, nan, 2.0]))
    yield "matrix", Call(sample((33, 65), gen) * 5)


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode) * 5)
    yield "batch", Call(sample((4, 31, 127), gen, mode))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Math/bessel_j1",
    entry="bessel_j1",
    signature="bessel_j1(input: Tensor) -> Tensor",
    description="Returns the Bessel function of the first kind of order one, J1(x), of every element, as a new "
                "float32 tensor of the input's shape. J1 is odd (J1(−x) = −J1(x), J1(0) = 0, J1(x) ≈ x/2 near 0) "
                "and for large |x| behaves like sqrt(2/(π|x|))·cos(|x| − 3π/4)·sign(x). As torch does, ±inf and "
                "NaN inputs give NaN. No Triton builtin exists: use polynomial / rational approximations for "
                "small |x| and the asymptotic (Hankel) expansion for large |x|, in fp32. Finite inputs are "
                "tested up to |x| = 10^4: beyond about 2.6·10^5 torch's float32 evaluation (the reference) drifts "
                "from J1 by more than the tolerance. (torch's `out=` argument is not part of the task.)",
    math=r"J_1(x) = \sum_{k\ge 0} \frac{(-1)^k}{k!\,(k+1)!}\left(\frac{x}{2}\right)^{2k+1}",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="The absolute term covers J1's zeros, where relative error is meaningless; a careful "
                            "fp32 implementation is within ~1e-6 of the reference everywhere tested."),
    flops=elementwise_flops(30),
    deviations=(
        Deviation(Kind.COVERAGE, "small fixed vectors and random N(0, 1) inputs",
                  "adds ±inf, NaN, tiny and large |x| (up to 1e4), the first zeros of J1, empty and size-1 dimensions; random inputs of 65 537, 129×257 (×5) and 4×31×127 elements",
                  "special values and odd shapes under the same semantics"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        sweep_subset(),
    ),
)
