"""Fusion/fused_gelu_min: GELU then the minimum over one dimension (values and indices) or over everything."""

import inspect

import torch

from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, approximate: str = "none", dim=None, keepdim: bool = False):
    activated = gelu(input, approximate=approximate)
    if dim is None:
        return torch.min(activated)
    values, indices = torch.min(activated, dim=dim, keepdim=keepdim)
    return values, indices


def check(call: Call, output, expected, contract: Contract):
    """Values elementwise; indices may name any position holding the minimum (GELU is flat near its minimum,
    so near-ties are common and the first-occurrence rule cannot be judged across implementations)."""
    if not isinstance(expected, tuple):
        return contract.compare(output, expected)
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        return "output: expected a (values, indices) pair"
    values, indices = output
    reason = compare(values, expected[0], contract.tolerance, "output.values")
    if reason:
        return reason
    if not isinstance(indices, torch.Tensor) or indices.dtype != torch.int64:
        return "output.indices: expected an int64 tensor"
    if tuple(indices.shape) != tuple(expected[1].shape):
        return f"output.indices: shape {list(indices.shape)} != expected {list(expected[1].shape)}"
    args = inspect.signature(reference).bind(*call.args, **call.kwargs)
    args.apply_defaults()
    dim, keepdim = args.arguments["dim"], args.arguments["keepdim"]
    activated = gelu(args.arguments["input"].cpu(), approximate=args.arguments["approximate"])
    idx, ref = indices.detach().cpu(), expected[0].cpu()
    if ((idx < 0) | (idx >= activated.shape[dim])).any():
        return "output.indices: index out of range"
    if not keepdim:
        idx, ref = idx.unsqueeze(dim), ref.unsqueeze(dim)
    picked = activated.gather(dim, idx)
    reason = compare(picked, ref, contract.tolerance, "gelu(input) at output.indices")
    return f"{reason} (indices do not point at a minimum)" if reason else None


def fixed_cases(gen):
    yield "all", Call(torch.tensor([[0.5, -1.2, 3.0], [1.5, -0.3, 2.1]]))
    yield "rows", Call(torch.tensor([[0.5, -1.2, 3.0], [1.5, -0.3, 2.1]]), dim=1)
    yield "ramp_tanh_all", Call(torch.linspace(-6.0, 6.0, 1001), approximate="tanh")
    yield "cols_keepdim", Call(sample((65, 9), gen), dim=0, keepdim=True)
    yield "negative_dim_tanh", Call(sample((3, 5, 17), gen), "tanh", -1)
    yield "positive_rows", Call(sample((16, 33), gen).abs() + 0.1, dim=1)
    yield "large_magnitudes", Call(torch.tensor([[-1e4, 3.0, 1e4], [-30.0, -0.75, 30.0]]), "tanh", 1)
    yield "size1_dim_keepdim", Call(sample((4, 1, 3), gen), dim=1, keepdim=True)
    # three long columns (N = 10000 ≥ 8 blocks of 1024, so a kernel may split each into chunks), read with
    # stride 3; each column positive and shifted differently (GELU is increasing there), so their minima differ
    cols = sample((10000, 3), gen).abs() * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor([0.1, 0.5, 1.0])
    yield "cols_split", Call(cols, dim=0)


def random_cases(gen, mode):
    yield "rows", Call(sample((257, 1025), gen, mode), dim=1)
    yield "cols_keepdim_tanh", Call(sample((1025, 129), gen, mode), "tanh", 0, True)
    yield "flat", Call(sample((100_003,), gen, mode))
    yield "middle_dim", Call(sample((8, 63, 65), gen, mode), dim=1)
    yield "flat_tanh", Call(sample((70_001,), gen, mode), "tanh")


def perf_cases(gen):
    yield "all_n2^20", Call(sample((1 << 20,), gen))
    yield "rows_16384x8192", Call(sample((16384, 8192), gen), dim=1)
    yield "all_n2^27", Call(sample((1 << 27,), gen))


TASK = Task(
    id="Fusion/fused_gelu_min",
    entry="fused_gelu_min",
    signature="fused_gelu_min(input: Tensor, approximate: str = 'none', dim: int | None = None, "
              "keepdim: bool = False) -> Tensor | tuple[Tensor, Tensor]",
    description="Applies GELU elementwise (x·Φ(x) with Φ the standard normal CDF when approximate='none', or "
                "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) when approximate='tanh') and takes the minimum. When "
                "dim is None, returns the minimum over all elements as a 0-dim float32 tensor. Otherwise returns "
                "a pair (values, indices): the minimum along dimension `dim` (negative allowed) as float32 and "
                "the position of a minimum along that dimension as int64, both with `dim` removed (or kept with "
                "size 1 when keepdim=True). The upstream `out=` argument is dropped.",
    math=r"\mathrm{values}_j = \min_i \mathrm{GELU}(x_{ij}),\quad \mathrm{indices}_j = "
         r"\arg\min_i \mathrm{GELU}(x_{ij})",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; values float32; indices int64",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="GELU is flat around its minimum (x ≈ -0.75), so near-ties are common: any index "
                            "whose GELU value equals the minimum within the tolerance is accepted."),
    check=check,
    flops=input_flops(9),
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "the reference's exact GELU is x·erf(x/√2)/2 (the \"1 +\" is missing, so it "
                  "is never negative and its minimum is near 0 instead of GELU's ≈ −0.17)",
                  "GELU is torch's: x·Φ(x) = x·(1 + erf(x/√2))/2 (and the tanh form for approximate='tanh')",
                  "The task's description and catalogue apply torch.nn.functional.gelu; kbx computes that.",
                  in_prompt=True),
        Deviation(Kind.TOLERANCE, "torch.min's indices, compared exactly: the first occurrence of the minimum",
                  "any index whose GELU value equals the minimum within the tolerance",
                  "GELU is flat around its minimum, so near-ties within rounding are common and the first "
                  "occurrence depends on the last bit of each GELU evaluation; a stricter rule would judge the "
                  "erf implementation, not the kernel"),
        Deviation(Kind.PERF, "16 sizes, minimum of 1-D tensors of 2^12 … 2^27 elements",
                  "full minima of 2^20 and 2^27 elements, and row minima of 16384×8192",
                  "two of upstream's sizes plus a row reduction with indices, the other pattern a min kernel needs"),
    ),
)
