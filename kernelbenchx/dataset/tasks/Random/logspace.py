"""Random/logspace: `steps` points evenly spaced on a log scale from base**start to base**end."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, uniform


def reference(start, end, steps: int, base: float = 10.0, dtype: torch.dtype | None = None) -> torch.Tensor:
    device = next((t.device for t in (start, end) if isinstance(t, torch.Tensor)), None)
    return torch.logspace(start, end, steps, base, dtype=dtype, device=device)


# Relative error only (values span many decades); atol is the dtype's smallest normal, for subnormal results.
TOLERANCES = {torch.float32: Tolerance(rtol=1e-5, atol=1.2e-38), torch.float64: Tolerance(rtol=1e-7, atol=2.3e-308)}


def check(call, output, expected, contract):
    return compare(output, expected, TOLERANCES[expected.dtype])


def scalar(gen, low, high):
    return uniform((), gen, low, high)


def fixed_cases(gen):
    yield "five_decades", Call(1.0, 3.0, 5)
    yield "base_2", Call(0.0, 4.0, 5, base=2.0)
    yield "float64", Call(1.0, 2.0, 4, dtype=torch.float64)
    yield "descending_base_half", Call(-3.5, 7.25, 101, base=0.5)
    yield "single_step", Call(0.1, 1.0, 1)
    yield "no_steps", Call(0.0, 1.0, 0)
    yield "start_equals_end", Call(2.0, 2.0, 7, base=2.0)
    yield "overflow_to_inf", Call(30.0, 45.0, 16)
    yield "underflow_to_zero", Call(-50.0, -30.0, 21)
    yield "base_1", Call(-5.0, 5.0, 9, base=1.0)
    yield "tensor_bounds", Call(torch.tensor(-2.0), torch.tensor(1.5), 1000, base=3.0)
    yield "float64_wide", Call(-300.0, 300.0, 1001, dtype=torch.float64)


def random_cases(gen, mode):
    # start and end travel as 0-dim tensors (torch accepts them), so they change with the seed.
    yield "decades_100003", Call(scalar(gen, -10.0, 0.0), scalar(gen, 0.0, 10.0), 100_003)
    yield "base_e_65537", Call(scalar(gen, -20.0, 20.0), scalar(gen, -20.0, 20.0), 65_537, base=2.718281828459045)
    steps = int(randint((), gen, 1000, 5000))
    yield "float64_base_7", Call(scalar(gen, -30.0, 30.0), scalar(gen, -30.0, 30.0), steps, base=7.0,
                                 dtype=torch.float64)


def perf_cases(gen):
    for n in (1 << 12, 1 << 20, 1 << 27):
        yield f"steps2^{n.bit_length() - 1}", Call(torch.full((), -10.0, device=gen.device),
                                                   torch.full((), 10.0, device=gen.device), n)


TASK = Task(
    id="Random/logspace",
    entry="logspace",
    signature="logspace(start: float | Tensor, end: float | Tensor, steps: int, base: float = 10.0, "
              "dtype: torch.dtype | None = None) -> Tensor",
    description="Returns a 1-D tensor of `steps` values base**e_i whose exponents e_i run evenly from `start` to "
                "`end` inclusive: e_i = start + i·(end − start)/(steps − 1), like torch.logspace. steps = 1 gives "
                "[base**start]; steps = 0 an empty tensor. start and end are Python floats or 0-dim tensors "
                "(whose device then holds the output; read their values on the device). base > 0. dtype is "
                "float32 when None, or float64; compute in the output dtype's precision, so a float64 result "
                "needs float64 arithmetic. Results beyond the dtype's range are +inf or 0, as in torch. torch's "
                "out=, layout=, device= and requires_grad= arguments are not part of this task.",
    math=r"\mathrm{out}_i = \mathrm{base}^{\,\mathrm{start} + i\,(\mathrm{end}-\mathrm{start})/(\mathrm{steps}-1)},"
         r"\quad i = 0, \dots, \mathrm{steps}-1",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="start/end float or 0-dim float32 tensors; output float32 (or `dtype`: float64)",
                      tolerance=TOLERANCES[torch.float32],
                      notes="float64 outputs are held to rtol 1e-7 (atol 2.3e-308), which float32 arithmetic "
                            "cannot meet. The values span many decades, so the error is relative; atol is only "
                            "the smallest normal number, for subnormal results. Exponents may be formed from the "
                            "start for every i or, as torch does, from the end for the second half."),
    flops=elementwise_flops(4),
    check=check,
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5", "relative error only: rtol 1e-5 (float32) "
                  "or 1e-7 (float64), atol the dtype's smallest normal number",
                  "the values span many decades: an absolute 1e-5 accepted any answer for values below 1e-5, and "
                  "float64 results computed in float32 passed"),
        Deviation(Kind.PERF, "16 sizes, steps = 2^12 … 2^27", "steps = 2^12, 2^20 and 2^27",
                  "a subset of upstream's sizes from small to the largest"),
    ),
)
