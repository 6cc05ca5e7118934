"""Reduce/min_gelu: GELU elementwise, then the minimum over all elements or along one dimension (with indices)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, input_flops, sample

APPROX = ("none", "tanh")
INF, NAN = float("inf"), float("nan")


def reference(input: torch.Tensor, dim: int | None = None, keepdim: bool = False, approximate: str = "none"):
    g = gelu(input, approximate=approximate)
    if dim is None:
        return torch.min(g)
    _, where = torch.min(g, dim, keepdim=True)
    # torch's CPU GELU can round equal inputs differently (vector body vs scalar tail), so the index is taken as
    # the first position holding the same input value as the minimiser: ties are defined on the inputs.
    best = input.gather(dim, where)
    same = (input == best) | (input.isnan() & best.isnan())
    trailing = input.dim() - 1 - dim % input.dim()
    pos = torch.arange(input.shape[dim], device=input.device).view([-1] + [1] * trailing)
    indices = torch.where(same, pos, input.shape[dim]).amin(dim, keepdim=True)
    values = g.gather(dim, indices)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices


def grid(shape, gen, mode="standard"):
    """Values on a 1/16 grid. GELU is not monotonic, so two different x can give GELU values a few ulps apart and
    make the arg-min depend on the GELU implementation; on this grid distinct values near the minimum are ≥ 1e-4
    apart, while equal x (exact ties, resolved by first occurrence) are frequent."""
    return (sample(shape, gen, mode) * 16).round() / 16


def fixed_cases(gen):
    yield "example", Call(torch.tensor([[0.5, -1.25, 3.0], [1.5, 0.0, -2.375]]))
    yield "example_rows", Call(torch.tensor([[0.5, -1.25, 3.0], [1.5, 0.0, -2.375]]), 1)
    yield "all_tanh", Call(sample((33, 65), gen), approximate="tanh")
    yield "all_positive", Call(sample((100,), gen).abs() + 0.5)
    ties = torch.tensor([[2.0, -0.75, 1.0, -0.75], [-0.75, -0.75, -0.75, -0.75], [3.0, 1.0, 2.0, 1.0]])
    yield "ties_rows", Call(ties, dim=1)
    yield "cols_keepdim", Call(grid((65, 7), gen), 0, True)
    yield "middle_dim_tanh", Call(grid((3, 40, 5), gen), -2, approximate="tanh")
    yield "nan", Call(torch.tensor([[0.0, NAN, -0.75], [1.0, 2.0, -0.5]]), 1)
    # GELU(+inf) = +inf, GELU(-inf) = NaN (-inf·Φ(-inf) = -inf·0): a -inf input makes its slice NaN.
    yield "infinities", Call(torch.tensor([[INF, 1.0, -0.5, INF], [0.25, -INF, -0.75, NAN], [INF, INF, INF, INF]]),
                             1, True, "tanh")
    yield "all_infinities", Call(torch.tensor([3.0, INF, -1.5, INF]))
    yield "size_one_dim_tanh_keepdim", Call(grid((4, 1, 3), gen), 1, True, "tanh")


def pick(gen, values):
    return values[int(torch.randint(len(values), (), generator=gen))]


def random_cases(gen, mode):
    keep = bool(torch.randint(2, (), generator=gen))
    yield "all", Call(sample((100_003,), gen, mode), approximate=pick(gen, APPROX))
    yield "rows", Call(grid((257, 1025), gen, mode), 1, keep)
    yield "cols_tanh", Call(grid((1025, 129), gen, mode), 0, not keep, approximate="tanh")
    yield "middle_keepdim", Call(grid((6, 301, 37), gen, mode), 1, True, pick(gen, APPROX))


def perf_cases(gen):
    # upstream times min_gelu(x, dim=0) on 1-D inputs of 2^12 … 2^27 elements (on the 1/16 grid here: the index
    # is compared exactly, also for timed outputs)
    for k in (20, 24, 27):
        yield f"dim0_2^{k}", Call(grid((1 << k,), gen), 0)


TASK = Task(
    id="Reduce/min_gelu",
    entry="min_gelu",
    signature="min_gelu(input: Tensor, dim: int | None = None, keepdim: bool = False, approximate: str = 'none')",
    description="Applies GELU elementwise (approximate='none': x·Φ(x) = 0.5·x·(1 + erf(x/√2)); approximate='tanh': "
                "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))) and then takes the minimum. When dim is None it "
                "returns the minimum over all elements as a 0-d tensor (keepdim is ignored). Otherwise it reduces "
                "along `dim` (negative dims count from the end) and returns a tuple (values, indices): the minimum "
                "GELU value of each slice (input dtype) and its int64 index along `dim`, with `dim` removed or kept "
                "as size 1 when keepdim is True. When the minimum occurs several times the smallest index (first "
                "occurrence) is returned; a NaN result makes its slice's value NaN with the index of its first NaN. "
                "GELU(+inf) = +inf and GELU(-inf) = NaN (−inf·Φ(−inf) = −inf·0, which is indeterminate). "
                "(torch's `out=` argument is not part of this task.)",
    math=r"v = \min_i \mathrm{GELU}(x_i),\quad \mathrm{idx} = \min\{\, i : \mathrm{GELU}(x_i) = v \,\}",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; output float32 (and int64 indices when dim is given)",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Values are compared with the tolerance, indices exactly. Inputs reduced along a dim "
                            "lie on a 1/16 grid, so distinct inputs never produce near-equal minima and the arg-min "
                            "is unambiguous for any accurate GELU; ties come from equal input values, and equal "
                            "inputs must give equal GELU values (first occurrence wins)."),
    choices={"approximate": APPROX},
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference computes x·erf(x/√2)/2 for approximate='none' (the '1 +' of "
                  "GELU missing), contradicting its own description (GELU)",
                  "the standard GELU 0.5·x·(1 + erf(x/√2)), as torch.nn.functional.gelu",
                  "the task is GELU followed by a minimum; the upstream formula is not GELU"),
        Deviation(Kind.COVERAGE, "1-D and 2-D N(0, 1) inputs", "adds ±inf and NaN inputs (GELU(-inf) = NaN), other "
                  "and negative dims, size-1 dimensions", "the same semantics at their edges"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "1-D 2^20, 2^24 and 2^27 elements",
                  "a subset spanning upstream's range; below 2^20 elements the time is launch overhead"),
    ),
    flops=input_flops(9),
)
