"""MatrixMultiply/tensordot_rsqrt: elementwise 1/√ of a tensordot contraction."""

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample


def reference(a: torch.Tensor, b: torch.Tensor, dims) -> torch.Tensor:
    return torch.rsqrt(torch.tensordot(a, b, dims=dims))


def positive(shape, gen, mode="standard"):
    """Positive factors, so that every contraction is positive and its rsqrt finite."""
    return sample(shape, gen, mode).abs() + 0.1


def fixed_cases(gen):
    a = torch.arange(1, 13, dtype=torch.float32).reshape(3, 4)
    yield "example", Call(a, torch.arange(1, 25, dtype=torch.float32).reshape(4, 6), ([1], [0]))
    yield "int_dims", Call(positive((5, 6, 7), gen), positive((6, 7, 3), gen), 2)
    yield "outer_product", Call(positive((4,), gen), positive((5,), gen), 0)
    yield "list_dims", Call(positive((3, 8, 5), gen), positive((5, 2, 8), gen), [[1, 2], [2, 0]])
    yield "full_contraction", Call(positive((6, 7), gen), positive((6, 7), gen), 2)
    zero_row = torch.cat([torch.zeros(1, 9), positive((3, 9), gen)])
    yield "zero_and_negative", Call(torch.cat([zero_row, -torch.ones(1, 9)]), positive((9, 5), gen), 1)


def random_cases(gen, mode):
    yield "matrix", Call(positive((256, 255), gen, mode), positive((255, 129), gen, mode), 1)
    yield "two_dims", Call(positive((67, 13, 11), gen, mode), positive((13, 11, 97), gen, mode), 2)
    yield "permuted_dims", Call(positive((31, 64, 9), gen, mode), positive((9, 65, 64), gen, mode), ([1, 2], [2, 0]))


def perf_cases(gen):
    yield "256^2", Call(positive((256, 256), gen), positive((256, 256), gen), 1)
    yield "2048^2", Call(positive((2048, 2048), gen), positive((2048, 2048), gen), 1)
    yield "4096^2", Call(positive((4096, 4096), gen), positive((4096, 4096), gen), 1)


def flops(call, out):
    a, b = call.args[0], call.args[1]
    contracted = (a.numel() * b.numel() / out.numel()) ** 0.5 if out.numel() else 0.0
    return 2.0 * out.numel() * contracted + 2.0 * out.numel()


TASK = Task(
    id="MatrixMultiply/tensordot_rsqrt",
    entry="tensordot_rsqrt",
    signature="tensordot_rsqrt(a: Tensor, b: Tensor, dims: int | tuple[list[int], list[int]] | list[list[int]]) -> Tensor",
    description="Returns torch.rsqrt(torch.tensordot(a, b, dims)). As in torch.tensordot: an integer dims = d "
                "contracts the last d dimensions of `a` with the first d dimensions of `b` (in order); a pair "
                "(dims_a, dims_b) contracts a's dimension dims_a[i] with b's dimension dims_b[i]. The result has "
                "a's free dimensions (in order) followed by b's free dimensions; then 1/√x elementwise, giving "
                "+inf where the contraction is 0 and NaN where it is negative. Output float32.",
    math=r"\mathrm{out} = \Big(\sum_{k} a_{\ldots,k}\, b_{k,\ldots}\Big)^{-1/2}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="a, b float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True,
                      notes="TF32 products carry ~1e-3 relative error, hence the tolerance scaled by the "
                            "output's RMS. Exact zeros and negative sums must still give inf and NaN."),
    flops=flops,
    unit="tf32",
)
