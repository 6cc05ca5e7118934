"""kernelbenchx: the KernelBench-X evaluator for LLM-written Triton kernels.

    import kernelbenchx as kbx
    result = kbx.evaluate("Activation/gelu", code)
    result.verdict, result.reason          # Verdict.CORRECT, Reason.PASSED
    summary = kbx.evaluate_submission("submission.jsonl", kbx.RunConfig(out_dir="results"))
    prompt = kbx.render_prompt(kbx.get_task("Reduce/sum"))
"""

__version__ = "0.2.0"

# name → (module, attribute): imported on first use, so `import kernelbenchx` stays cheap and side-effect free.
_EXPORTS = {
    "evaluate": ("kernelbenchx.evaluator.parent.run", "evaluate"),
    "evaluate_submission": ("kernelbenchx.evaluator.parent.run", "evaluate_submission"),
    "evaluate_batch": ("kernelbenchx.evaluator.parent.batch", "evaluate_batch"),
    "Evaluator": ("kernelbenchx.evaluator.parent.batch", "Evaluator"),
    "RunConfig": ("kernelbenchx.evaluator.parent.context", "RunConfig"),
    "Result": ("kernelbenchx.evaluator.result", "Result"),
    "Verdict": ("kernelbenchx.evaluator.reasons", "Verdict"),
    "Reason": ("kernelbenchx.evaluator.reasons", "Reason"),
    "Task": ("kernelbenchx.dataset.task", "Task"),
    "get_task": ("kernelbenchx.dataset.registry", "get_task"),
    "list_tasks": ("kernelbenchx.dataset.registry", "tasks_in"),
    "render_prompt": ("kernelbenchx.dataset.prompt", "render_prompt"),
    "read_results": ("kernelbenchx.evaluator.parent.rundir", "read_results"),
    "KbxError": ("kernelbenchx.errors", "KbxError"),
    "SubmissionError": ("kernelbenchx.errors", "SubmissionError"),
    "UnknownTask": ("kernelbenchx.dataset.registry", "UnknownTask"),
}
__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        module, attr = _EXPORTS[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'kernelbenchx' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
