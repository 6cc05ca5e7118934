"""Static checks: each rule fires on its construct and stays quiet on honest code."""

import pytest

from kernelbenchx.evaluator.parent.static import check_source
from kernelbenchx.evaluator.reasons import Rejected

KERNEL = """
import torch
import triton
import triton.language as tl

@triton.jit
def _k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""
ENTRY = """
def f(input, compile=False):
    out = torch.empty_like(input)
    _k[(triton.cdiv(input.numel(), 256),)](input, out, input.numel(), BLOCK=256)
    return out.view(input.shape)
"""


def rejected(code: str) -> tuple[str, str]:
    with pytest.raises(Rejected) as info:
        check_source(code, "f")
    return info.value.verdict.value, info.value.reason.value


def test_honest_code_passes_and_reports_what_it_found():
    report = check_source(KERNEL + ENTRY, "f")
    assert report.kernels == ["_k"] and report.launches == 1 and set(report.reachable) == {"f", "_k"}


@pytest.mark.parametrize("code, expected", [
    ("def f(:\n", ("compile_error", "syntax_error")),
    (KERNEL, ("missing_entry", "missing_entry")),
    ("import torch\ndef f(x):\n    return x\n", ("no_triton_kernel", "no_jit_kernel")),
    (KERNEL + "\ndef f(x):\n    return x * 2\n", ("no_triton_kernel", "kernel_not_launched")),
    (KERNEL + ENTRY + "\nimport subprocess\n", ("forbidden", "subprocesses")),
    (KERNEL + ENTRY + "\nimport numpy\n", ("forbidden", "host_compute")),
    (KERNEL + ENTRY + "\nfrom kernelbenchx.dataset import registry\n", ("forbidden", "imports_reference")),
    (KERNEL + ENTRY + "\nimport torch as t\ng = t.compile(f)\n", ("forbidden", "torch_compile")),
    (KERNEL + ENTRY + "\nfrom torch import cuda\ns = cuda.Stream()\n", ("forbidden", "streams")),
    (KERNEL + ENTRY + "\ntorch.cuda.synchronize = lambda: None\n", ("forbidden", "monkeypatch")),
    (KERNEL + ENTRY + "\nsetattr(torch, 'mm', None)\n", ("forbidden", "monkeypatch")),
    (KERNEL + ENTRY + "\nx = f.__globals__\n", ("forbidden", "introspection")),
    (KERNEL + ENTRY + "\nclass T(torch.Tensor):\n    pass\n", ("forbidden", "tensor_subclass")),
    (KERNEL + ENTRY + "\ny = eval('1')\n", ("forbidden", "dynamic_code")),
    (KERNEL + ENTRY.replace("    return out", "    v = out.tolist()\n    return out"), ("forbidden", "host_compute")),
    (KERNEL + "CACHE = {}\n" + ENTRY.replace("    return out", "    CACHE[1] = out\n    return out"),
     ("forbidden", "cross_call_state")),
    (KERNEL + ENTRY.replace("compile=False", "memo=[]"), ("forbidden", "cross_call_state")),
    (KERNEL + ENTRY.replace("    out = torch", "    global G\n    out = torch"), ("forbidden", "cross_call_state")),
    (KERNEL + ENTRY.replace("    return out", "    try:\n        pass\n    except Exception:\n        pass\n"
                                                "    return out"), ("forbidden", "try_except_fallback")),
])
def test_rule_fires(code, expected):
    assert rejected(code) == expected


def test_unreachable_helpers_are_not_judged_as_the_call_path():
    helper = "\ndef _unused():\n    try:\n        pass\n    except Exception:\n        pass\n"
    assert check_source(KERNEL + ENTRY + helper, "f").launches == 1


def test_sources_are_parsed_one_at_a_time_and_a_spurious_ast_error_is_retried(monkeypatch):
    """The parent checks candidates on many threads; CPython 3.11's AST constructor is not thread-safe
    (gh-106905: an honest candidate ended as `harness_error` with "AST constructor recursion depth mismatch")."""
    import ast
    import threading
    import time

    from kernelbenchx.evaluator.parent import static

    real, inside, most, failed_once = ast.parse, [0], [0], []

    def parse(code, *args, **kwargs):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        inside[0] -= 1
        if not failed_once:
            failed_once.append(True)
            raise SystemError("AST constructor recursion depth mismatch (before=27, after=22)")
        return real(code, *args, **kwargs)

    monkeypatch.setattr(static.ast, "parse", parse)
    reports = []
    threads = [threading.Thread(target=lambda: reports.append(static.check_source(KERNEL + ENTRY, "f")))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(reports) == 6 and most[0] == 1 and failed_once
