"""Judging what the candidate process observed during a call. The table of what counts as compute lives here,
in the parent: nothing the candidate can reach decides which of its operators are allowed.

Order: the observation layer must have stayed in place; nothing refused by the in-process guard; no timer,
signal handler or process left behind; no thread started (counted at the attempt) or left running; at least one
Triton launch (unless every output is empty); no PyTorch compute outside Triton (allocation, views, copies and
metadata are not compute); at most HOST_READS_LIMIT scalar reads to the host (a host loop over `.item()` is host
compute).
"""

from __future__ import annotations

from kernelbenchx.evaluator.messages import Observation
from kernelbenchx.evaluator.parent import reported
from kernelbenchx.evaluator.reasons import Reason, Rejected

# aten overload packets that never compute results: allocation, views, copies, metadata.
HARMLESS_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full", "fill_", "zero_", "scalar_tensor",
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "permute", "transpose", "t",
    "squeeze", "unsqueeze", "select", "slice", "narrow", "split", "split_with_sizes", "unbind", "chunk",
    "flatten", "unflatten", "alias", "detach", "lift_fresh", "view_as_real", "view_as_complex",
    "movedim", "diagonal", "unfold", "expand_as", "view_as", "contiguous", "clone", "copy_", "_to_copy",
    "to", "_copy_from", "_copy_from_and_resize", "resize_", "is_same_size", "_local_scalar_dense",
    "item", "size", "stride", "sym_size", "sym_stride", "numel", "dim", "is_contiguous", "arange", "tensor",
    "lift_fresh_copy", "_has_compatible_shallow_copy_type", "is_nonzero", "equal",
    "_conj", "conj", "resolve_conj", "resolve_neg", "_neg_view", "real", "imag", "randperm",
    "cat", "stack",  # pure copies, like clone/copy_ above (which can already assemble any concatenation)
    "swapaxes", "broadcast_to", "expand_copy", "as_strided_copy", "view_copy",
})
HOST_READS_LIMIT = 1024  # `.item()` reads per call: scalar parameters, not a loop over the data


def judge(obs: Observation | None, where: str, empty_output: bool) -> None:
    """Raise Rejected for the first rule the observation breaks."""
    if obs is None:
        return
    judge_tampering(obs, where)
    if obs.launches == 0 and not empty_output:
        raise Rejected(Reason.NO_LAUNCH, f"{where}: the call launched no Triton kernel")
    compute = compute_ops(obs.ops)
    if compute:
        raise Rejected(Reason.TORCH_COMPUTE, f"{where}: PyTorch computed outside Triton: {', '.join(compute)}",
                       ops=compute)
    reads = obs.ops.get("_local_scalar_dense", 0) / max(1, obs.calls)
    if reads > HOST_READS_LIMIT:
        raise Rejected(Reason.HOST_COMPUTE, f"{where}: {reads:.0f} scalar reads to the host per call (a host loop "
                                            "over the data)")


def judge_tampering(obs: Observation, where: str) -> None:
    """The rules that hold even when the call raised: the observers stayed in place, nothing was refused,
    no thread was started or left behind."""
    malformed = reported.observation_problem(obs)
    if malformed:
        raise Rejected(Reason.PROTOCOL, f"{where}: the candidate process sent a malformed observation ({malformed})")
    if not obs.observer_intact:
        raise Rejected(Reason.OBSERVER_DISABLED, f"{where}: the operator recorder or the launch counter was "
                                                 "removed or replaced during the call")
    if obs.refused:
        raise Rejected(Reason.SANDBOX_VIOLATION, f"{where}: the sandbox refused: {', '.join(obs.refused[:5])}")
    if obs.armed:
        raise Rejected(Reason.SANDBOX_VIOLATION, f"{where}: the call left {', '.join(obs.armed[:5])} set: code "
                                                 "that would run later, between the harness's requests")
    if obs.processes:
        raise Rejected(Reason.SANDBOX_VIOLATION, f"{where}: the call left {len(obs.processes)} process(es) running "
                                                 f"({', '.join(obs.processes[:5])}): code that runs beside the "
                                                 "harness's requests")
    if obs.thread_attempts:
        raise Rejected(Reason.THREADS, f"{where}: the call tried to start {obs.thread_attempts} thread(s)")
    if obs.threads_after > obs.threads_before:
        named = f" ({', '.join(obs.new_threads[:5])})" if obs.new_threads else ""
        raise Rejected(Reason.THREADS, f"{where}: the call left {obs.threads_after - obs.threads_before} extra "
                                       f"thread(s) running{named}")


def compute_ops(ops: dict[str, int]) -> list[str]:
    return sorted(op for op in ops if op not in HARMLESS_OPS)
