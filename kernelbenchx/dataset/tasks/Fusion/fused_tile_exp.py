"""Fusion/fused_tile_exp: exponential of a tensor tiled (torch.tile) along each dimension."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample


def reference(input: torch.Tensor, dims) -> torch.Tensor:
    return torch.exp(torch.tile(input, dims))


def fixed_cases(gen):
    yield "example", Call(torch.tensor([1.0, 2.0, 3.0]), (2,))
    yield "zeros", Call(torch.zeros(3, 5), (2, 3))
    yield "identity_tile", Call(sample((7, 9), gen), (1, 1))
    yield "fewer_dims", Call(sample((3, 4, 5), gen), (3,))
    yield "more_dims", Call(sample((6, 7), gen), (2, 1, 3))
    yield "zero_repeat", Call(sample((4, 5), gen), (0, 2))
    yield "specials", Call(torch.tensor([float("-inf"), -200.0, -88.0, 0.0, 80.0, 88.7, 89.0, 200.0,
                                         float("inf"), float("nan")]), (1, 2))
    yield "ramp", Call(torch.linspace(-20.0, 20.0, 401).reshape(1, 401), (3, 2))
    yield "rank4", Call(sample((2, 3, 1, 5), gen), (2, 1, 3, 2))
    yield "rank5_transposed", Call(sample((3, 2, 4, 1, 5), gen).transpose(1, 2), (2, 1, 1, 3, 2))
    yield "rank6_from_fewer_dims", Call(sample((2, 3, 4), gen), (2, 1, 2, 1, 1, 2))


def random_cases(gen, mode):
    yield "rows", Call(sample((129, 65), gen, mode), (2, 3))
    yield "vector_prepend", Call(sample((10_007,), gen, mode), (3, 2))
    yield "batch_fewer_dims", Call(sample((4, 31, 63), gen, mode), (2, 5))
    yield "vector_x2", Call(sample((4097,), gen, mode), (2,))


def perf_cases(gen):
    for k in (16, 24, 27):
        yield f"n2^{k}_x(2,)", Call(sample((1 << k,), gen), (2,))


TASK = Task(
    id="Fusion/fused_tile_exp",
    entry="fused_tile_exp",
    signature="fused_tile_exp(input: Tensor, dims: tuple[int, ...]) -> Tensor",
    description="Tiles the input as torch.tile(input, dims) and returns exp of every element of the tiled tensor. "
                "If dims has fewer entries than input.dim(), ones are prepended to dims; if it has more, the input "
                "is treated as having leading dimensions of size 1. Along each dimension d the output has size "
                "input_size[d] × dims[d] and output[..., i, ...] = exp(input[..., i mod input_size[d], ...]) "
                "(a repeat count of 0 gives an empty dimension). exp follows IEEE rules: it overflows to +inf "
                "above about 88.72, gives 0 for -inf and propagates NaN. The output is a new contiguous float32 "
                "tensor. The upstream `out=` argument is dropped.",
    math=r"Z = \exp(\mathrm{tile}(X, \mathrm{dims}))",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; dims a tuple of non-negative ints; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5)),
    flops=elementwise_flops(1),
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference expands to shape (*dims, *input.shape) "
                  "(input.unsqueeze(0).expand(*dims, *input.shape)): new leading dimensions, e.g. a (3,) input "
                  "with dims (2,) gives (2, 3)",
                  "torch.tile(input, dims) then exp, e.g. (3,) with dims (2,) gives (6,)",
                  "Upstream's own docstring, catalogue code (torch.tile) and example output (6 values) all "
                  "describe tiling; only its reference expands", in_prompt=True),
        Deviation(Kind.COVERAGE, "dims (2,) and (2, 3) on inputs of up to 1024 elements",
                  "fewer and more dims than input dimensions, identity and zero repeats, exp overflow and "
                  "underflow, ±inf and NaN, up to 30 000 elements",
                  "the dims-padding rules and exp's special values are where kernels go wrong"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements, dims (2,)",
                  "1-D 2^16, 2^24 and 2^27 elements, dims (2,)", "a subset spanning small to largest"),
    ),
)
