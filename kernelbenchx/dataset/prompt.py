"""The exact text a model is given for a task: description, signature, numerical and submission contracts."""

from __future__ import annotations

from kernelbenchx.dataset.task import Task

SUBMISSION_RULES = """\
- Write Python that defines a top-level function `{entry}` with the signature above.
- The work must be done by Triton kernels (`@triton.jit`) that `{entry}` launches on every call.
  Outside kernels you may allocate outputs (`torch.empty`, `torch.empty_like`, ...), make views, reshape,
  copy or concatenate tensors (`.contiguous()`, `torch.cat`, `torch.stack`) and compute launch parameters;
  you may not compute with PyTorch operators (use `math` for shape arithmetic), `torch.compile`,
  other libraries, threads, subprocesses or extra CUDA streams.
- Inputs arrive as CUDA tensors (CPU tensors under the Triton interpreter). Do not cache results between
  calls; every call must read its inputs.
- Return the result; do not print it. Imports allowed: torch, triton, triton.language, math, typing."""


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
    parts += ["", "## Submission contract", "", SUBMISSION_RULES.format(entry=task.entry)]
    return "\n".join(parts) + "\n"
