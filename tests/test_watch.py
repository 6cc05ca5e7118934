"""The run's where-is-it report (kill -USR1): each worker's candidate and stage, and the GPU guards."""

import threading

from kernelbenchx.evaluator.parent import watch
from kernelbenchx.evaluator.parent.gpu_guard import GpuGuard


def test_the_report_names_each_candidate_in_progress_its_stage_and_the_guards():
    seen, done = threading.Event(), threading.Event()

    def worker():
        watch.begin("Math/add|0|||abc")
        watch.at("stage1 small (queued)")
        seen.set()
        done.wait(5)
        watch.end()

    watch.GUARDS[:] = [GpuGuard()]
    thread = threading.Thread(target=worker)
    thread.start()
    seen.wait(5)
    text = watch.report()
    assert "1 candidates in progress" in text and "Math/add" in text and "stage1 small (queued)" in text
    assert "gpu 0 guard: sharers=0 timing=False" in text
    done.set()
    thread.join(5)
    assert "0 candidates in progress" in watch.report()
    watch.GUARDS.clear()
