"""Fusion/fused_masked_select_add_gelu: GELU of (masked_select(input, mask) + alpha × other)."""

import torch
from torch._subclasses.fake_tensor import FakeTensor

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randbool, sample


def reference(input: torch.Tensor, mask: torch.Tensor, other, *, alpha=1, approximate: str = "none"):
    if isinstance(input, FakeTensor) or isinstance(mask, FakeTensor):
        # Shape-only tracing has no data, so the length is unknown: give the upper bound (every element).
        return input.new_empty(torch.broadcast_shapes(input.shape, mask.shape).numel())
    selected = torch.masked_select(input, mask)
    return gelu(torch.add(selected, other, alpha=alpha), approximate=approximate)


def selected_count(input, mask):
    return int(torch.broadcast_to(mask, torch.broadcast_shapes(input.shape, mask.shape)).sum())


def fixed_cases(gen):
    x = sample((3, 4), gen)
    yield "example", Call(x, x.ge(0), torch.tensor(1.0))
    yield "all_false", Call(sample((17,), gen), torch.zeros(17, dtype=torch.bool), 0.5)
    # no elements at all (the broadcast shape has a zero): the empty result must still be float32
    yield "empty_input", Call(torch.zeros(0, 5), torch.zeros(0, 5, dtype=torch.bool), 0.5)
    yield "all_true_ramp", Call(torch.linspace(-8.0, 8.0, 1001), torch.ones(1001, dtype=torch.bool), -0.25,
                                alpha=2)
    yield "mask_broadcast_rows", Call(sample((9, 33), gen), randbool((33,), gen), 0.5, approximate="tanh")
    yield "mask_broadcast_cols", Call(sample((9, 33), gen), randbool((9, 1), gen), -1.0, alpha=0.5)
    inp, mask = sample((31, 65), gen), randbool((31, 65), gen)
    yield "tensor_other", Call(inp, mask, sample((selected_count(inp, mask),), gen), alpha=-1.5)
    yield "specials", Call(torch.tensor([float("inf"), float("-inf"), float("nan"), 1e4, -1e4, 0.0]),
                           torch.tensor([True, True, True, True, True, False]), 0.0)
    yield "broadcast_4d", Call(sample((3, 1, 4, 5), gen), randbool((2, 1, 5), gen), 0.5, alpha=-2)
    # rank 5, input and mask both broadcast; input a transposed (non-contiguous) view; tensor `other`
    inp, mask = sample((2, 6, 3, 1, 5), gen).transpose(1, 3), randbool((1, 4, 1, 6, 1), gen)
    yield "broadcast_5d", Call(inp, mask, sample((selected_count(inp, mask),), gen), approximate="tanh")


def random_cases(gen, mode):
    yield "vector", Call(sample((65_537,), gen, mode), randbool((65_537,), gen), 0.5)
    inp, mask = sample((129, 257), gen, mode), randbool((129, 257), gen, 0.3)
    yield "matrix_tensor_other_tanh", Call(inp, mask, sample((selected_count(inp, mask),), gen, mode),
                                           alpha=2, approximate="tanh")
    yield "batch_broadcast_mask", Call(sample((4, 31, 127), gen, mode), randbool((31, 127), gen, 0.7),
                                       torch.tensor(-0.5), alpha=3)


def perf_cases(gen):
    for name, n in (("n2^16", 1 << 16), ("n2^24", 1 << 24), ("n2^27", 1 << 27)):
        yield name, Call(sample((n,), gen), randbool((n,), gen), 0.5)


TASK = Task(
    id="Fusion/fused_masked_select_add_gelu",
    entry="fused_masked_select_add_gelu",
    signature="fused_masked_select_add_gelu(input: Tensor, mask: Tensor, other: Tensor | float, *, "
              "alpha: float = 1, approximate: str = 'none') -> Tensor",
    description="Selects the elements of input where the boolean mask is True (torch.masked_select: mask and "
                "input broadcast together, and the selected values are laid out as a 1-D tensor in row-major "
                "order of the broadcast shape), adds alpha × other (other is a Python number, a 0-d tensor or "
                "a tensor broadcastable to the 1-D selection, e.g. of the selection's length), then applies "
                "GELU elementwise: s·Φ(s) with Φ the standard normal CDF when approximate='none', or "
                "0.5·s·(1 + tanh(√(2/π)·(s + 0.044715·s³))) when approximate='tanh'. Returns a new 1-D float32 "
                "tensor whose length is the number of selected elements (0 when nothing is selected). As torch "
                "evaluates GELU, +inf gives +inf, -inf gives NaN and NaN propagates. "
                "The upstream `out=` argument is dropped.",
    math=r"Y = \mathrm{GELU}(\mathrm{masked\_select}(X, M) + \alpha O)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32; mask bool; other float32 tensor or number; output 1-D float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="The output length depends on the data (the number of True mask entries); the "
                            "order of the selected values must be row-major, as torch.masked_select gives."),
    flops=elementwise_flops(10),
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.COVERAGE, "same-shape masks and scalar `other` only, 4096-element random cases (tanh)",
                  "adds masks broadcast against the input (rank 4 and 5 broadcasts included), tensor `other` "
                  "(0-d or of the selection's length), "
                  "empty selections, ±inf and NaN, both GELU forms, up to 65 537 elements",
                  "broadcasting and tensor operands are part of torch.masked_select and torch.add"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements, half the mask True, other = 0.5",
                  "1-D 2^16, 2^24 and 2^27 elements, half the mask True, other = 0.5",
                  "a subset spanning small to largest"),
    ),
)
