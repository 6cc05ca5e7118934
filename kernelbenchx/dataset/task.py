"""The task contract: what a task module declares, and the helpers it builds inputs with.

A task module under ``dataset/tasks/<Category>/<stem>.py`` defines one module-level ``TASK``.
Inputs are plain data (``Call``): tensors, numbers, strings, dtypes, None, tuples and lists.
They are built by the trusted side from a ``torch.Generator`` and shipped to the candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import torch

from kernelbenchx.dataset.contract import Contract
from kernelbenchx.dataset.deviation import Deviation, faithful
from kernelbenchx.dataset.views import transfer

MODES = ("standard", "outlier")
CaseList = Iterable[tuple[str, "Call"]]


class Call:
    """Positional and keyword arguments for one call of the entry function."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = tuple(args)
        self.kwargs = dict(kwargs)

    def __repr__(self) -> str:
        parts = [describe(a) for a in self.args] + [f"{k}={describe(v)}" for k, v in self.kwargs.items()]
        return f"Call({', '.join(parts)})"

    def tensors(self) -> list[torch.Tensor]:
        return list(iter_tensors((self.args, self.kwargs)))

    def map(self, fn: Callable[[torch.Tensor], torch.Tensor]) -> "Call":
        return Call(*map_tensors(self.args, fn), **map_tensors(self.kwargs, fn))

    def to(self, device: str | torch.device) -> "Call":
        """The call on `device`, every tensor keeping its strides and storage offset."""
        return self.map(lambda t: transfer(t, device))

    def clone(self) -> "Call":
        return self.map(lambda t: t.clone())

    def invoke(self, fn: Callable[..., Any]) -> Any:
        return fn(*self.args, **self.kwargs)

    def to_payload(self) -> dict:
        return {"args": list(self.args), "kwargs": self.kwargs}

    @classmethod
    def from_payload(cls, payload: dict) -> "Call":
        return cls(*payload["args"], **payload["kwargs"])


def iter_tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from iter_tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from iter_tensors(v)


def map_tensors(value: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(map_tensors(v, fn) for v in value)
    if isinstance(value, list):
        return [map_tensors(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_tensors(v, fn) for k, v in value.items()}
    return value


def describe(value: Any) -> str:
    """Short human form of an argument: shapes and dtypes, not data."""
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        return f"{dtype}{list(value.shape)}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


@dataclass(frozen=True)
class Cost:
    """Algorithmic work of one call: FLOPs and compulsory bytes (inputs read once, outputs written once)."""

    flops: float
    bytes: float
    unit: str  # compute unit the roofline uses: fp32, tf32, fp16, bf16, fp64, int8, int


def tensor_bytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for t in iter_tensors(value))


@dataclass(frozen=True)
class Task:
    """Everything the generator, the dataset and the evaluator need to know about one task."""

    id: str
    entry: str
    signature: str
    description: str
    reference: Callable[..., Any]
    fixed_cases: Callable[[torch.Generator], CaseList]
    random_cases: Callable[[torch.Generator, str], CaseList]
    perf_cases: Callable[[torch.Generator], CaseList]
    contract: Contract
    flops: Callable[[Call, Any], float]
    difficulty: int = 3
    math: str = ""
    unit: str = "fp32"
    # How this task differs from the seed paper's version (dataset/deviation.py); () = it does not.
    # None means "not audited yet" and fails the test suite.
    deviations: tuple[Deviation, ...] | None = None
    in_paper: bool = True  # one of the seed paper's 176 tasks (False: added by kbx)
    # Parameter coverage (tests/test_coverage.py): the values each enumerable parameter can take, beyond
    # bools (both values) and Literal annotations, and the parameters deliberately left at their default.
    choices: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    fixed_params: dict[str, str] = field(default_factory=dict)  # parameter → why it is never varied
    # With Tolerance(scale="bound"): the per-element error bound of a call's output (same structure as the
    # output, tensors broadcastable to it), computed on the trusted side from the inputs.
    error_bound: Callable[[Call], Any] | None = None
    layout_case: str | None = None  # the fixed case the stage-1 layout cases derive from (default: chosen)
    # Compulsory bytes when the default (every input read once, every output written once) overcounts:
    # gathers such as nll_loss or index_select read only the selected part of an input.
    bytes: Callable[[Call, Any], float] | None = None
    # Custom comparison (decompositions, RNG, quantization): returns None when the output is acceptable
    # or a one-line reason when it is not. Default: contract.compare (elementwise rules).
    check: Callable[[Call, Any, Any, Contract], "str | None"] | None = None
    notes: dict[str, str] = field(default_factory=dict)
    # What the perf stage times as PyTorch's baseline when the reference's own call holds host work that is no part
    # of the operation's cost (a generator seeded from a device tensor's value reads it back): the same work on the
    # same inputs, graph-capturable. Only with a custom `check`: the perf outputs are then judged on the trusted
    # side against the seeded reference, never against the baseline's.
    timed_reference: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if (self.contract.tolerance.scale == "bound") != (self.error_bound is not None):
            raise ValueError(f"{self.id}: Tolerance(scale='bound') needs Task.error_bound, and only it")
        if self.timed_reference is not None and self.check is None:
            raise ValueError(f"{self.id}: Task.timed_reference needs a custom check (elementwise re-checks compare "
                             "the candidate's timed outputs with the baseline's)")

    @property
    def baseline(self) -> Callable[..., Any]:
        """What the perf stage times as the eager baseline."""
        return self.timed_reference or self.reference

    @property
    def faithful(self) -> bool:
        """Semantics and judging equal upstream's, apart from documented tolerance, coverage and perf changes."""
        return self.in_paper and self.deviations is not None and faithful(self.deviations)

    @property
    def category(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def stem(self) -> str:
        return self.id.split("/", 1)[1]

    def cost(self, call: Call, output: Any) -> Cost:
        if self.bytes is not None:
            return Cost(self.flops(call, output), self.bytes(call, output), self.unit)
        compared = self.contract.compared_outputs(call, output)
        return Cost(self.flops(call, output), tensor_bytes(call.args) + tensor_bytes(call.kwargs)
                    + tensor_bytes(compared), self.unit)

    def judge(self, call: Call, output: Any, expected: Any, bound: Any = None) -> str | None:
        """None if `output` meets the contract for `call`, else the reason it does not. `bound` is the
        trusted side's error_bound(call) for tolerances of scale "bound"."""
        if self.check is not None:
            return self.check(call, output, expected, self.contract)
        if bound is None and self.error_bound is not None:
            with torch.no_grad():
                bound = map_tensors(self.error_bound(call), lambda t: t.detach().double())
        return self.contract.compare(output, expected, bound)


# ---------------------------------------------------------------------------------------------
# Input builders. Every builder takes the generator explicitly: no global RNG state is touched.


def _gen_device(gen: torch.Generator) -> torch.device:
    return gen.device


def sample(shape: Iterable[int], gen: torch.Generator, mode: str = "standard", *,
           dtype: torch.dtype = torch.float32, p: float = 0.001, scale: float = 10.0) -> torch.Tensor:
    """N(0, 1) values; in ``outlier`` mode a fraction ``p`` of entries is multiplied by ``scale``."""
    shape = tuple(shape)
    x = torch.randn(shape, generator=gen, device=_gen_device(gen), dtype=torch.float32)
    if mode == "outlier":
        mask = torch.rand(shape, generator=gen, device=_gen_device(gen)) < p
        x = torch.where(mask, x * scale, x)
    elif mode != "standard":
        raise ValueError(f"unknown sampling mode {mode!r}; expected one of {MODES}")
    return x.to(dtype)


def uniform(shape: Iterable[int], gen: torch.Generator, low: float = 0.0, high: float = 1.0, *,
            dtype: torch.dtype = torch.float32) -> torch.Tensor:
    x = torch.rand(tuple(shape), generator=gen, device=_gen_device(gen), dtype=torch.float32)
    return (x * (high - low) + low).to(dtype)


def randint(shape: Iterable[int], gen: torch.Generator, low: int, high: int, *,
            dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.randint(low, high, tuple(shape), generator=gen, device=_gen_device(gen), dtype=dtype)


def randbool(shape: Iterable[int], gen: torch.Generator, p: float = 0.5) -> torch.Tensor:
    return torch.rand(tuple(shape), generator=gen, device=_gen_device(gen)) < p


def permutation(n: int, gen: torch.Generator) -> torch.Tensor:
    return torch.randperm(n, generator=gen, device=_gen_device(gen))


def spd_matrix(n: int, gen: torch.Generator, *, dtype: torch.dtype = torch.float32,
               batch: tuple[int, ...] = ()) -> torch.Tensor:
    """A well-conditioned symmetric positive-definite matrix (A Aᵀ / n + I)."""
    a = torch.randn((*batch, n, n), generator=gen, device=_gen_device(gen), dtype=torch.float64)
    m = a @ a.transpose(-1, -2) / n + torch.eye(n, dtype=torch.float64, device=_gen_device(gen))
    return m.to(dtype)


def well_conditioned(n: int, gen: torch.Generator, *, dtype: torch.dtype = torch.float32,
                     batch: tuple[int, ...] = ()) -> torch.Tensor:
    """A random square matrix with a strong diagonal, so solves and inverses are stable."""
    a = torch.randn((*batch, n, n), generator=gen, device=_gen_device(gen), dtype=torch.float64) / math.sqrt(n)
    a = a + 2.0 * torch.eye(n, dtype=torch.float64, device=_gen_device(gen))
    return a.to(dtype)


# ---------------------------------------------------------------------------------------------
# FLOP helpers for the common shapes of work.


def elementwise_flops(per_element: float) -> Callable[[Call, Any], float]:
    """FLOPs = per_element × the number of elements of the (first) output."""

    def flops(call: Call, output: Any) -> float:
        first = next(iter_tensors(output), None)
        return per_element * (first.numel() if first is not None else 0)

    return flops


def input_flops(per_element: float, arg: int = 0) -> Callable[[Call, Any], float]:
    """FLOPs = per_element × the number of elements of positional argument ``arg`` (reductions)."""

    def flops(call: Call, output: Any) -> float:
        return per_element * call.args[arg].numel()

    return flops
