"""kernelbenchx: the KernelBench-X evaluator for LLM-written Triton kernels.

    import kernelbenchx as kbx
    record = kbx.evaluate("Activation/gelu", code)
    record["verdict"]  # "correct", "incorrect", "forbidden", ...
"""

__version__ = "0.1.0"

__all__ = ["__version__", "evaluate", "evaluate_submission", "get_task", "list_tasks", "render_prompt"]


def __getattr__(name: str):
    # Lazy, so `import kernelbenchx` stays cheap and free of side effects.
    if name in ("evaluate", "evaluate_submission"):
        from kernelbenchx.evaluator import run

        return getattr(run, name)
    if name == "get_task":
        from kernelbenchx.dataset.registry import get_task

        return get_task
    if name == "list_tasks":
        from kernelbenchx.dataset.registry import tasks_in

        return tasks_in
    if name == "render_prompt":
        from kernelbenchx.dataset.prompt import render_prompt

        return render_prompt
    raise AttributeError(name)
