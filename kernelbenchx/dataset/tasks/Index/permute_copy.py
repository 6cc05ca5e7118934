"""Index/permute_copy: a contiguous copy of `input` with its dimensions reordered (no aliasing)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, dims) -> torch.Tensor:
    return torch.permute_copy(input, dims)


def fixed_cases(gen):
    yield "transpose", Call(sample((7, 13), gen), (1, 0))
    yield "identity", Call(sample((3, 4, 5), gen), (0, 1, 2))
    yield "nchw_to_nhwc", Call(sample((2, 3, 5, 7), gen), (0, 2, 3, 1))
    yield "reverse", Call(sample((2, 3, 5, 7), gen), (3, 2, 1, 0))
    yield "negative_dims", Call(sample((4, 6, 9), gen), [-1, 0, -2])
    yield "unit_dims", Call(sample((1, 8, 1, 3), gen), (3, 1, 0, 2))
    yield "vector", Call(sample((17,), gen), (0,))
    yield "int64", Call(torch.arange(120).reshape(2, 3, 4, 5), (2, 0, 3, 1))


def random_cases(gen, mode):
    yield "nhwc", Call(sample((3, 37, 41, 61), gen, mode), (0, 2, 3, 1))
    yield "transpose", Call(sample((257, 1021), gen, mode), (1, 0))
    yield "rotate_3d", Call(sample((61, 67, 71), gen, mode), (2, 0, 1))
    yield "reverse_5d", Call(sample((3, 5, 7, 11, 13), gen, mode), (4, 3, 2, 1, 0))


def perf_cases(gen):
    yield "32^4_nhwc", Call(sample((32, 32, 32, 32), gen), (0, 2, 3, 1))
    yield "64^4_reverse", Call(sample((64, 64, 64, 64), gen), (3, 2, 1, 0))
    yield "128^4_nhwc", Call(sample((128, 128, 128, 128), gen), (0, 2, 3, 1))


TASK = Task(
    id="Index/permute_copy",
    entry="permute_copy",
    signature="permute_copy(input: Tensor, dims: tuple[int, ...] | list[int]) -> Tensor",
    description="Returns a new contiguous tensor equal to input.permute(dims), like torch.permute_copy: "
                "output.shape[k] == input.shape[dims[k]] and output[i_0, ..., i_{n-1}] is the input element whose "
                "index along dimension dims[k] is i_k. `dims` is a permutation of range(input.dim()); negative "
                "entries count from the end. The output never aliases the input (even for the identity "
                "permutation) and has input's dtype.",
    math=r"\mathrm{out}_{i_0\ldots i_{n-1}} = x_{j},\ j_{d_k} = i_k",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (or int64) of rank 1-5; output contiguous, input's dtype",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="Pure data movement: values must match exactly."),
    flops=lambda call, out: 0.0,
    deviations=(
        Deviation(Kind.PERF, "4-D cubes 8^4 … 128^4 (5 rows; the permutation is not in the golden data)",
                  "4-D cubes 32^4 (0, 2, 3, 1), 64^4 (3, 2, 1, 0), 128^4 (0, 2, 3, 1)",
                  "a subset of upstream's sizes with the two usual permutations; below 32^4 the timing is "
                  "launch overhead"),
    ),
)
