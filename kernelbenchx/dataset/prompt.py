"""The exact text a model is given for a task: description, signature, numerical and submission contracts."""

from __future__ import annotations

from kernelbenchx.dataset.task import Task

SUBMISSION_RULES = """\
- Write Python that defines a top-level function `{entry}` with the signature above.
- The work must be done by Triton kernels (`@triton.jit`) that `{entry}` launches on every call.
- Host code may only allocate (`torch.empty`, `torch.empty_like`, `x.new_empty`, ...), make views (`view`,
  `reshape`, `permute`, `transpose`, slicing), copy or concatenate (`.contiguous()`, `.clone()`, `.to(dtype)`,
  `torch.cat`, `torch.stack`), read metadata (`shape`, `stride()`, `dtype`, `device`, `numel()`) and compute
  launch parameters (`triton.cdiv`, `triton.next_power_of_2`, `math`). No PyTorch arithmetic, no
  `torch.compile`, no other libraries, threads, subprocesses, files or extra CUDA streams.
- Imports allowed: torch, triton, triton.language, triton.language.extra.libdevice, math, typing, and
  functools.partial/reduce, itertools.product, operator arithmetic. No classes, no private (`_x`) or dunder
  attributes, no getattr with computed names, no global state kept between calls, no try/except around
  the work.
- Inputs arrive as CUDA tensors (CPU tensors under the Triton interpreter). Every call must read its inputs
  and write fresh outputs.
- Return the result; do not print it."""


def render_prompt(task: Task) -> str:
    parts = [
        f"# {task.id}",
        "",
        task.description,
        "",
        "## Signature",
        "",
        f"    {task.signature}",
    ]
    if task.math:
        parts += ["", "## Math", "", task.math]
    parts += ["", "## Numerical contract", "", task.contract.describe(custom_check=task.check is not None)]
    stated = [d for d in task.deviations or () if d.in_prompt]
    if stated:
        parts += ["", "## Differences from the original KernelBench-X task", ""]
        parts += [f"- {d.kbx} (The original task: {d.upstream}.) {d.reason}" for d in stated]
    parts += ["", "## Submission contract", "", SUBMISSION_RULES.format(entry=task.entry)]
    return "\n".join(parts) + "\n"
