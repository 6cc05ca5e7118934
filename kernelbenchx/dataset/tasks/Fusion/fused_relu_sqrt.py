"""Fusion/fused_relu_sqrt: square root of the rectified input, optionally computed in place."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    if input.dtype not in (torch.float32, torch.float64):
        input = input.float()  # a float32 copy: an integer input is never written
    if inplace:
        return input.relu_().sqrt_()  # the input itself, holding the result
    return torch.sqrt(torch.relu(input))


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
    yield "int64_inplace", Call(randint((1000,), gen, -10, 10), True)
    yield "float64_inplace", Call(sample((3, 333), gen, mode, dtype=torch.float64), True)


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))
    yield "n2^27_inplace", Call(sample((1 << 27,), gen), True)


def bytes_moved(call, out):
    """The input read once and the result written once (in place, the result is the input: not twice)."""
    x = call.args[0]
    result = out[0] if isinstance(out, tuple) else out
    return x.numel() * x.element_size() + result.numel() * result.element_size()


TASK = Task(
    id="Fusion/fused_relu_sqrt",
    entry="fused_relu_sqrt",
    signature="fused_relu_sqrt(input: Tensor, inplace: bool = False) -> Tensor",
    description="Computes sqrt(max(0, x)) elementwise. Inputs of another dtype than float32 or float64 (the "
                "cases use int64) are first converted to a float32 copy. With inplace=False the result is a new "
                "tensor of the input's shape and (float) dtype and the input is left unchanged. With "
                "inplace=True and a float32/float64 input, the input itself is overwritten with "
                "sqrt(max(0, x)) and returned (the returned tensor may be the input object, or a tensor "
                "holding the same values); an int64 input is never written (its float32 copy is what gets "
                "overwritten) and the result is a new float32 tensor. NaN inputs give NaN (ReLU keeps NaN), "
                "-0.0 gives a zero (of either sign) and +inf gives +inf. The upstream `out=` argument is dropped.",
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
                      notes="With inplace=True a float input must hold sqrt(max(0, x)) afterwards (within the "
                            "tolerance); with inplace=False, or for an int64 input, it must be left unchanged."),
    flops=elementwise_flops(2),
    bytes=bytes_moved,
    deviations=(
        Deviation(Kind.COVERAGE, "in-place calls on a 4-element vector only; random cases 1024×1024 float32 and "
                  "512×512 int64 out of place",
                  "in-place calls on float32, float64 and int64 inputs of up to 33 153 elements, -0.0, ±inf, "
                  "NaN and huge or tiny values, on non-contiguous views too",
                  "the in-place path and the dtype conversion are where kernels go wrong; the semantics are "
                  "upstream's"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements, out of place",
                  "1-D 2^16, 2^24 and 2^27 elements out of place, and 2^27 in place",
                  "a subset spanning small to largest, plus the in-place path, which writes the input"),
    ),
)
