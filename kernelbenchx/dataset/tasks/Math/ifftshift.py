"""Math/ifftshift: undo fftshift by rolling chosen dimensions back by floor(n / 2)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(input: torch.Tensor, dim=None) -> torch.Tensor:
    return torch.fft.ifftshift(input, dim=dim)


def fixed_cases(gen):
    yield "odd_1d", Call(torch.fft.fftshift(torch.fft.fftfreq(5)))
    yield "even_1d", Call(torch.arange(8.0))
    yield "all_dims_2d", Call(torch.arange(35.0).reshape(5, 7))
    yield "dim0", Call(sample((6, 9), gen), 0)
    yield "negative_dim", Call(sample((3, 5, 7), gen), -1)
    yield "dim_tuple", Call(sample((4, 5, 6), gen), (0, 2))
    yield "size_one", Call(sample((1, 9, 1), gen))
    yield "inf_nan", Call(torch.tensor([float("nan"), 1.0, float("inf"), -2.0, float("-inf")]))


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch_last_two", Call(sample((4, 63, 127), gen, mode), (-2, -1))


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "image_4097x4095", Call(sample((4097, 4095), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))
    yield "batch_64x1024x2048_dims12", Call(sample((64, 1024, 2048), gen), (1, 2))


TASK = Task(
    id="Math/ifftshift",
    entry="ifftshift",
    signature="ifftshift(input: Tensor, dim: int | tuple[int, ...] | None = None) -> Tensor",
    description="The inverse of torch.fft.fftshift: returns a new tensor of the input's shape and dtype in which "
                "every dimension d listed in `dim` (all dimensions when dim is None; negative indices count from "
                "the end) is rolled by -floor(n_d / 2), i.e. out[..., i, ...] = input[..., (i + floor(n_d / 2)) "
                "mod n_d, ...]. For odd sizes this differs from fftshift. Other dimensions keep their order. "
                "Values are moved, not computed (NaN and inf included).",
    math=r"\text{out}[i_d] = \text{in}[(i_d + \lfloor n_d/2 \rfloor) \bmod n_d] \text{ for each shifted } d",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 of any shape; output float32, same shape",
                      tolerance=Tolerance(rtol=0.0, atol=0.0),
                      notes="A pure permutation: the output must equal the reference exactly."),
    flops=lambda call, out: 0.0,
)
