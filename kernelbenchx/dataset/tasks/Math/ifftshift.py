"""Math/ifftshift: undo fftshift by rolling chosen dimensions back by floor(n / 2)."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.Math._sweep import sweep_subset


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
    yield "four_dims_middle", Call(sample((3, 4, 5, 6), gen), (1, -2))
    # rank 5: a transposed (non-contiguous) input, odd and even sizes, some dims or all
    yield "five_dims", Call(sample((2, 5, 3, 4, 7), gen).transpose(1, 3), (1, -2, 4))
    yield "five_dims_all", Call(sample((3, 4, 5, 2, 3), gen).transpose(0, 2))
    yield "empty", Call(torch.empty(0, 5), 1)


def random_cases(gen, mode):
    def size():  # odd and even lengths
        return int(torch.randint(2, 48, (), generator=gen))

    yield "vector", Call(sample((65_537,), gen, mode))
    yield "matrix", Call(sample((129, 257), gen, mode))
    yield "batch_last_two", Call(sample((4, 63, 127), gen, mode), (-2, -1))
    shape = (size(), size(), size())
    dims = [None, int(torch.randint(-3, 3, (), generator=gen)), (0, 2), (2, 0, 1)]
    yield "random_dims", Call(sample(shape, gen, mode), dims[int(torch.randint(4, (), generator=gen))])


def perf_cases(gen):
    yield "n2^16", Call(sample((1 << 16,), gen))
    yield "n2^24", Call(sample((1 << 24,), gen))
    yield "n2^27", Call(sample((1 << 27,), gen))
    yield "image_4097x4095", Call(sample((4097, 4095), gen))


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
    deviations=(sweep_subset("1-D inputs of 2^16, 2^24 and 2^27 elements, plus a 4097×4095 image (all dims)",
                             extra_reason="the odd-sized image times the multi-dimensional shift the correctness "
                                          "cases test, which upstream's 1-D sweep does not"),),
)
