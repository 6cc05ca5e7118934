"""Activation/gelu_int8: GELU of int8 values computed in float32 and converted back to int8 by truncation."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset

INT8 = torch.int8
APPROXIMATE = ("none", "tanh")
# Where the exact GELU lies this close (relative) to an integer, the truncated result depends on the last bits
# of a float32 erf/tanh, so either neighbour is accepted: 16 float32 ulps, far above any honest fp32 error,
# far below the 0.004 by which every other int8 input's GELU clears an integer.
AMBIGUOUS = 2.0 ** -19


def reference(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    # The float32 GELU correctly rounded (computed in float64, rounded once), then truncated toward zero as
    # `.to(torch.int8)` does. Computing it in float64 keeps the expected value independent of the CPU's erf.
    return F.gelu(input.double(), approximate=approximate).float().to(INT8)


def check(call: Call, output, expected, contract: Contract):
    """Exact, except where the exact GELU lies within AMBIGUOUS (relative) of an integer: there both truncations
    of float32 values around it are accepted."""
    if not isinstance(output, torch.Tensor):
        return f"output: expected a tensor, got {type(output).__name__}"
    if output.dtype != INT8:
        return f"output: dtype {output.dtype} != expected {INT8}"
    if tuple(output.shape) != tuple(expected.shape):
        return f"output: shape {list(output.shape)} != expected {list(expected.shape)}"
    x, approximate = bind(*call.args, **call.kwargs)
    y = F.gelu(x.detach().double(), approximate=approximate)
    margin = torch.where(y == y.round(), 0.0, AMBIGUOUS * y.abs())  # GELU(x ≥ 9) is x to float64 precision
    low = torch.minimum((y - margin).trunc(), expected.double())
    high = torch.maximum((y + margin).trunc(), expected.double())
    out = output.detach().double()
    bad = (out < low) | (out > high)
    if bad.any():
        i = int(bad.reshape(-1).nonzero()[0])
        return (f"output: {int(bad.sum())} of {out.numel()} values differ (exact integers required); first at "
                f"flat index {i}: {int(out.reshape(-1)[i])} != expected {int(expected.reshape(-1)[i])} "
                f"(input {int(x.reshape(-1)[i])})")
    return None


def bind(input, approximate="none"):
    return input, approximate


def int8_sample(shape, gen, mode="standard"):
    """Integers around zero (std 8); outlier mode pushes some to the saturated ends of the int8 range."""
    return (sample(shape, gen, mode) * 8).round().clamp(-128, 127).to(INT8)


def fixed_cases(gen):
    yield "zeros", Call(torch.zeros(17, dtype=INT8))
    yield "empty", Call(torch.zeros(0, dtype=INT8))
    yield "full_range", Call(torch.arange(-128, 128, dtype=INT8))
    yield "full_range_tanh", Call(torch.arange(127, -129, -1).to(INT8), approximate="tanh")
    yield "small", Call(torch.tensor([-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=INT8))
    yield "small_tanh", Call(torch.tensor([-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=INT8), "tanh")
    yield "matrix", Call(int8_sample((33, 65), gen))
    yield "unit_dims", Call(randint((1, 255, 1), gen, -128, 128, dtype=INT8), "tanh")


def random_cases(gen, mode):
    drawn = APPROXIMATE[int(torch.randint(2, (), generator=gen))]
    yield "vector", Call(int8_sample((65_537,), gen, mode))
    yield "matrix_tanh", Call(int8_sample((129, 257), gen, mode), approximate="tanh")
    yield "batch", Call(randint((4, 31, 127), gen, -128, 128, dtype=INT8), approximate=drawn)


def perf_cases(gen):
    yield "n2^16", Call(int8_sample((1 << 16,), gen))
    yield "n2^24", Call(int8_sample((1 << 24,), gen))
    yield "n2^27", Call(int8_sample((1 << 27,), gen))
    yield "n2^27_tanh", Call(int8_sample((1 << 27,), gen), approximate="tanh")


TASK = Task(
    id="Activation/gelu_int8",
    entry="gelu_int8",
    signature="gelu_int8(input: Tensor, approximate: str = 'none') -> Tensor",
    description="Applies GELU to an int8 tensor and returns an int8 tensor of the same shape, as "
                "`F.gelu(input.float(), approximate).to(torch.int8)` does: each value x is converted to float32, "
                "GELU is applied in float32 (approximate='none': 0.5·x·(1 + erf(x/√2)); approximate='tanh': "
                "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))), and the float32 result is converted to int8 by "
                "truncation toward zero (a C cast, not rounding): GELU(1) ≈ 0.841 gives 0, GELU(3) ≈ 2.996 gives "
                "2, negative inputs give 0 (GELU(x) ∈ (−0.17, 0] there) and inputs ≥ 9 give x. Results always fit "
                "in int8. There is no scale or zero point: the int8 values are the real values.",
    math=r"y = \mathrm{trunc}\big(\mathrm{fl}_{32}(\mathrm{GELU}(x))\big)",
    difficulty=1,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input int8 of any shape; output int8, same shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      accumulation="fp32 (the GELU itself)",
                      notes="Outputs are integers and must match exactly, with one allowance: where the exact "
                            "GELU lies within 2^-19 (relative) of an integer (x = 5 … 8, where GELU(x) is x minus "
                            "a few float32 ulps), the truncation depends on the last bit of the float32 erf or "
                            "tanh, so both x − 1 and x are accepted."),
    check=check,
    flops=elementwise_flops(8),
    choices={"approximate": APPROXIMATE},
    deviations=(
        Deviation(Kind.TOLERANCE, "exact match with torch's float32 GELU truncated to int8",
                  "exact match, except that at inputs whose exact GELU lies within 2^-19 (relative) of an integer "
                  "(x = 5 … 8) both truncations are accepted",
                  "GELU(x) for x = 5 … 8 is x minus 0.3 … 3 float32 ulps, so whether its float32 value truncates "
                  "to x − 1 or x depends on the last bit of erf/tanh (the exact value truncates to x − 1, torch's "
                  "float32 gives x for x ≥ 6, and GELU_tanh(5) sits half an ulp below 5): a correct kernel "
                  "whose erf differs from torch's by one ulp would fail upstream's exact check"),
        Deviation(Kind.COVERAGE, "fixed vectors, the int8 edges, and 4096-element random vectors in [-20, 20) and "
                  "[-128, 128)", "adds the whole int8 range in both forms, empty and size-1 dimensions; random "
                  "inputs of 65 537, 129×257 and 4×31×127 elements", "every int8 input value is checked"),
        sweep_subset("1-D int8 inputs of 2^16, 2^24 and 2^27 elements ('none'), and 2^27 with 'tanh'",
                     upstream="16 1-D int8 inputs of 2^12 … 2^27 elements, approximate='none', times summed",
                     extra_reason="the tanh form is timed too because its kernel differs"),
    ),
)
