"""The warm-ups (child/warm.py, parent/warm_up.py): launches on fake tensors become compiles with the
specialization the real launch will have, autotuners compile their configs without choosing one, and tampering
is reported.

No GPU here: the compile itself is replaced by a recorder standing where Triton's JITFunction.run is (the
warm-up wraps whatever is there, as it wraps the launch counter and compile lease in a candidate process).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl
from torch._subclasses.fake_tensor import FakeTensorMode
from triton._C.libtriton import native_specialize_impl
from triton.backends.compiler import BaseBackend
from triton.runtime import autotuner, jit

from kernelbenchx.dataset.registry import get_task
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.child import warm
from kernelbenchx.evaluator.parent import warm_up
from kernelbenchx.evaluator.measure.perf_case import perf_case_count
from kernelbenchx.evaluator.reasons import Reason, Rejected

SOLUTIONS = Path(__file__).resolve().parents[1] / "kernelbenchx" / "solutions"


def specialization(arg: object) -> tuple:
    return native_specialize_impl(BaseBackend, arg, False, True, True)


def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Stands in for JITFunction.run (Triton's launch path): records each call instead of compiling."""
    seen: list[dict] = []

    def record(fn, *args, grid=None, warmup=False, **kwargs):
        seen.append({"fn": fn, "args": args, "kwargs": kwargs, "warmup": warmup, "grid": grid})
        return "compiled"

    monkeypatch.setattr(jit.JITFunction, "run", record)
    return seen


def test_fake_pointer_specializes_like_the_real_tensor() -> None:
    real = torch.zeros(64)
    mode = FakeTensorMode()
    fake = mode.from_tensor(real)
    for offset in (0, 1, 3, 4, 8):
        with mode:
            view = fake[offset:]
        assert specialization(warm.FakePointer(view)) == specialization(real[offset:])
    assert specialization(warm.FakePointer(real[2:])) == specialization(real[2:])


def test_a_launch_compiles_and_does_not_launch(launches: list[dict]) -> None:
    kernel = jit.JITFunction(scale)
    with warm.compile_only() as hooks, FakeTensorMode():
        x = torch.empty(1000)
        kernel[(4,)](x[1:], torch.empty_like(x), 999, BLOCK=256)
        assert hooks.intact()
    assert jit.JITFunction.run is not hooks.run  # restored
    (launch,) = launches
    assert launch["warmup"] is True
    first, second, n = launch["args"]
    assert isinstance(first, warm.FakePointer) and first.data_ptr() == 4 and first.dtype == torch.float32
    assert second.data_ptr() == 0 and n == 999 and launch["kwargs"] == {"BLOCK": 256}


def test_an_autotuned_launch_compiles_every_config_and_chooses_none(launches: list[dict]) -> None:
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((128, 4), (256, 4), (512, 8))]
    tuned = autotuner.Autotuner(jit.JITFunction(scale), ["x_ptr", "out_ptr", "n"], configs, ["n"], None, None)
    with warm.compile_only(), FakeTensorMode():
        x = torch.empty(1000)
        tuned[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, torch.empty_like(x), 1000)
    assert sorted((c["kwargs"]["BLOCK"], c["kwargs"]["num_warps"]) for c in launches) == [(128, 4), (256, 4), (512, 8)]
    assert all(c["warmup"] for c in launches)
    assert tuned.cache == {} and tuned.nargs is None  # the real first call still benchmarks on real data


def test_candidate_code_replacing_the_hooks_is_reported(launches: list[dict]) -> None:
    task = get_task("Activation/gelu")

    def entry(x, *args, **kwargs):
        jit.JITFunction.run = lambda *a, **k: None  # would launch for real, uncounted, during a warm-up
        return x

    report = warm.perf_cases(task, entry, "cpu")
    assert report.hooks_intact is False
    assert jit.JITFunction.run is not None and report.warmed == report.cases


def test_a_case_that_cannot_run_on_fake_tensors_is_skipped_not_fatal(launches: list[dict]) -> None:
    task = get_task("Activation/gelu")

    def entry(x, *args, **kwargs):
        return x.sum().item()  # data-dependent: FakeTensorMode refuses

    report = warm.perf_cases(task, entry, "cpu")
    assert report.warmed == 0 and len(report.skipped) == report.cases == perf_case_count(task)
    assert all("case" in line for line in report.skipped)


@pytest.mark.parametrize("task_id", ["Activation/gelu", "Reduce/sum", "Convolution/conv2d", "LinearAlgebra/qr",
                                     "Fusion/fused_layer_norm_relu_linear", "MatrixMultiply/matmul"])
def test_kept_solutions_warm_every_perf_case_on_fake_tensors(task_id: str, launches: list[dict],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton.knobs.runtime, "interpret", False)  # kernels as the GPU path sees them
    spec = importlib.util.spec_from_file_location("warm_solution", SOLUTIONS / f"{task_id}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task = get_task(task_id)
    report = warm.perf_cases(task, getattr(module, task.entry), "cpu")
    assert report.skipped == [] and report.warmed == report.cases > 0 and report.hooks_intact
    assert launches and all(c["warmup"] for c in launches)


class WarmChild:
    """A candidate process that answers the warm-up with `reply` (parent side of the exchange)."""

    def __init__(self, reply: object) -> None:
        self.reply = reply
        self.clock: list[float] = []

    def restart_clock(self, seconds: float) -> None:
        self.clock.append(seconds)

    def extend_clock(self, seconds: float) -> None:
        pass

    def call(self, request: object, timeout: float | None = None, interim: object = None) -> object:
        assert isinstance(request, (m.WarmPerf, m.WarmCases)) and interim is None  # no GPU guard to answer for
        self.request = request
        return self.reply


def observation(**facts: object) -> m.Observation:
    return m.Observation(**{"launches": 0, "ops": {}, "threads_before": 3, "threads_after": 3,
                            "observer_intact": True, **facts})


def test_the_parent_records_the_warm_up_and_rejects_tampering() -> None:
    ok = WarmChild(m.Warmed(3, 2, 5, 1.5, ("case 2: DataDependentOutputException: item",), observation()))
    record = warm_up.perf(ok, 60.0)
    assert ok.clock == [60.0]
    assert record["cases"] == 3 and record["warmed"] == 2 and record["compiles"] == 5 and len(record["skipped"]) == 1
    for facts, reason in (({"thread_attempts": 1}, Reason.THREADS), ({"threads_after": 4}, Reason.THREADS),
                          ({"observer_intact": False}, Reason.OBSERVER_DISABLED)):
        with pytest.raises(Rejected) as raised:
            warm_up.perf(WarmChild(m.Warmed(3, 3, 0, 0.1, (), observation(**facts))), 60.0)
        assert raised.value.reason == reason and "perf warm-up" in raised.value.message
    with pytest.raises(Rejected) as raised:
        warm_up.perf(WarmChild(m.Warmed(3, 3, 0, 0.1)), 60.0)  # no observation sent
    assert raised.value.reason == Reason.OBSERVER_DISABLED
    with pytest.raises(Rejected) as raised:
        warm_up.perf(WarmChild(m.Symbols(())), 60.0)
    assert raised.value.reason == Reason.PROTOCOL



def test_a_thread_left_by_the_compile_pool_sends_the_candidate_to_a_process_without_it() -> None:
    """A warm-up on the compile threads that left a thread running and broke no other rule is not judged: the
    candidate goes to a fresh process without the pool. Any other breach, or the same breach without the pool,
    is judged as before."""
    left = observation(threads_after=4, new_threads=("python3",))
    with pytest.raises(warm_up.PoolLeftThreads) as raised:
        warm_up.warm_calls(WarmChild(m.Warmed(3, 3, 2, 0.5, (), left)), (), pooled=True)
    assert "left 1 thread(s) running (python3)" in raised.value.message
    for facts, reason, pooled in (({"threads_after": 4}, Reason.THREADS, False),
                                  ({"threads_after": 4, "thread_attempts": 1}, Reason.THREADS, True),
                                  ({"threads_after": 4, "observer_intact": False}, Reason.OBSERVER_DISABLED, True),
                                  ({"threads_after": 4, "refused": ("open",)}, Reason.SANDBOX_VIOLATION, True),
                                  ({"threads_after": -1}, Reason.PROTOCOL, True)):
        with pytest.raises(Rejected) as judged:
            warm_up.warm_calls(WarmChild(m.Warmed(3, 3, 2, 0.5, (), observation(**facts))), (), pooled=pooled)
        assert judged.value.reason == reason, facts
    assert warm_up.warm_calls(WarmChild(m.Warmed(3, 3, 2, 0.5, (), observation())), (), pooled=True)["cases"] == 3


def test_a_candidate_whose_pool_left_a_thread_is_judged_once_more_without_the_pool(monkeypatch) -> None:
    from contextlib import nullcontext
    from types import SimpleNamespace

    from kernelbenchx.evaluator.parent import candidate
    from kernelbenchx.evaluator.parent.submission import Candidate

    attempts: list[int] = []

    def in_process(item, task, run, log, gpu, limits, threads):
        attempts.append(threads)
        if threads:
            raise warm_up.PoolLeftThreads("the correctness warm-up on the compile threads left 1 thread(s) running")
        raise Rejected(Reason.THREADS, "correctness warm-up: the call left 1 extra thread(s) running")

    monkeypatch.setattr(candidate, "in_process", in_process)
    run = SimpleNamespace(config=SimpleNamespace(static_checks=False, compile_threads=4, warm_up=True),
                          device="cuda", place=lambda item: nullcontext(0))
    log = candidate.StageLog()
    item = Candidate(task_id="Activation/gelu", code="", source="s.jsonl:1")
    with pytest.raises(Rejected) as judged:
        candidate.run_stages(item, run, log)
    assert attempts == [4, 0] and judged.value.reason == Reason.THREADS
    assert "compile threads left 1 thread" in log.correct["pool_retry"]
    attempts.clear()
    with pytest.raises(Rejected):
        candidate.run_stages(item, SimpleNamespace(**{**vars(run), "device": "cpu"}), candidate.StageLog())
    run.config.warm_up = False
    with pytest.raises(Rejected):
        candidate.run_stages(item, run, candidate.StageLog())
    assert attempts == [0, 0]  # no pool on the CPU or without the warm-up: no second process


def test_a_malformed_warm_up_reply_is_a_protocol_breach() -> None:
    """The counts and seconds a candidate's process reports go into its record: NaN there is not even JSON."""
    for forged in (m.Warmed(3, 2, 5, float("nan"), (), observation()), m.Warmed(3, -1, 5, 1.0, (), observation()),
                   m.Warmed(True, 2, 5, 1.0, (), observation()), m.Warmed(3, 2, "5", 1.0, (), observation()),
                   m.Warmed(3, 2, 5, 1.0, (7,), observation()), m.Warmed(3, 2, 5, "1", (), observation()),
                   m.Warmed(3, 2, 5, 1.0, (), observation(), (), {"cpu_s": float("inf")}),
                   m.Warmed(3, 2, 5, 1.0, (), observation(), (), ["calls_s"])):
        with pytest.raises(Rejected) as raised:
            warm_up.perf(WarmChild(forged), 60.0)
        assert raised.value.reason == Reason.PROTOCOL and "malformed" in raised.value.message, forged
    record = warm_up.perf(WarmChild(m.Warmed(3, 2, 5, 1.0, ("x" * 5000,) * 30, observation())), 60.0)
    assert len(record["skipped"]) == 20 and all(len(line) == 300 for line in record["skipped"])
    record = warm_up.perf(WarmChild(m.Warmed(3, 3, 5, 1.0, (), observation(), (), {"cpu_s": 2.5, "made_up": 1.0})),
                          60.0)
    assert record["phases"] == {"cpu_s": 2.5}  # only the phases the schema names reach the record


def stage_rows(task_id: str) -> dict:
    """ExpectedRows as the reference server sends them, without expected outputs (the warm-up needs none)."""
    from kernelbenchx.dataset.cases import build_cases

    task = get_task(task_id)
    return {"stage1": [m.ExpectedRow(name, call.to_payload(), None) for name, call in build_cases(task, None)],
            "stage2": [m.ExpectedRow(name, call.to_payload(), None) for name, call in build_cases(task, 7)]}


def test_a_correctness_layout_warms_the_specialization_the_real_input_will_have(launches: list[dict]) -> None:
    storage = torch.zeros(1003)
    real = storage[3:].view(20, 50)[:, ::2]  # a strided view 12 bytes into its storage
    layout = warm_up.layout(real)
    assert layout.size == (20, 25) and layout.stride == (50, 2) and layout.storage_offset == 3
    assert layout.storage_size == 1003 and layout.dtype == "torch.float32"
    wire = m.decode(m.encode(m.WarmCases((warm_up.layouts({"args": [real, 2.5], "kwargs": {"k": 3}}),)))
                    [m.HEADER.size:])
    kernel = jit.JITFunction(scale)

    def entry(x, alpha, k):
        assert x.shape == (20, 25) and x.stride() == (50, 2) and alpha == 2.5 and k == 3
        kernel[(1,)](x, torch.empty_like(x), x.numel(), BLOCK=64)

    report = warm.correctness_calls(wire.calls, entry, "cpu")
    assert report.warmed == report.cases == 1 and report.skipped == [] and report.hooks_intact
    (launch,) = launches
    assert specialization(launch["args"][0]) == specialization(real)


@pytest.mark.parametrize("task_id", ["Activation/gelu", "Reduce/sum", "LinearAlgebra/qr", "MatrixMultiply/matmul"])
def test_kept_solutions_warm_their_correctness_cases_once_per_layout(task_id: str, launches: list[dict],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triton.knobs.runtime, "interpret", False)
    spec = importlib.util.spec_from_file_location("warm_solution", SOLUTIONS / f"{task_id}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = stage_rows(task_id)
    child = WarmChild(m.Warmed(0, 0, 0, 0.0, (), observation()))
    warm_up.correctness(child, rows)
    calls = child.request.calls
    assert 0 < len(calls) <= sum(map(len, rows.values()))
    assert len({repr(call) for call in calls}) == len(calls)  # each distinct layout once
    report = warm.correctness_calls(calls, getattr(module, get_task(task_id).entry), "cpu")
    assert report.skipped == [] and report.warmed == len(calls) and report.hooks_intact
    assert launches and all(c["warmup"] for c in launches)


def test_a_candidate_process_answers_the_correctness_warm_up_through_its_channel() -> None:
    """The real harness process: WarmCases is served after Load, decides nothing, and reports its facts."""
    from kernelbenchx.evaluator.isolation import TRUSTED
    from kernelbenchx.evaluator.parent.candidate import HARNESS
    from kernelbenchx.evaluator.parent.references import device_env
    from kernelbenchx.evaluator.process import Child, Limits

    task = get_task("Activation/gelu")
    rows = stage_rows(task.id)
    with Child(HARNESS, Limits(wall_s=120), TRUSTED, env=device_env("cpu", None)) as child:
        assert isinstance(child.call(m.Load((SOLUTIONS / f"{task.id}.py").read_text(), task.entry, task.id, "cpu")),
                          m.Loaded)
        record = warm_up.correctness(child, rows)
        assert isinstance(child.call(m.Verify()), m.Symbols)  # the process serves requests after it
    assert 0 < record["cases"] < sum(map(len, rows.values()))  # stage 2 repeats stage 1's layouts
    assert record["warmed"] + len(record["skipped"]) >= record["cases"]
    phases = record["phases"]
    assert set(phases) == set(m.WARM_PHASES), phases
    assert 0 <= phases["first_case_s"] <= phases["calls_s"] <= phases["compiled_s"] <= record["child_s"] + 1e-3
    assert 0 < phases["main_cpu_s"] <= phases["cpu_s"] + 0.02 and phases["tools_cpu_s"] >= 0  # clocks differ


def test_the_first_perf_build_runs_under_the_shared_guard_and_a_hang_is_the_candidates(monkeypatch) -> None:
    from kernelbenchx.evaluator.parent.gpu_guard import GpuGuard
    from kernelbenchx.evaluator.process import ChildFailed

    guard = GpuGuard()

    class BuildChild:
        def __init__(self, fail: str | None = None) -> None:
            self.fail, self.shared_during = fail, None

        def call(self, request: object, timeout: float | None = None, interim: object = None) -> object:
            assert isinstance(request, m.WarmBuild)
            self.shared_during = guard.sharers
            if self.fail:
                raise ChildFailed(self.fail, "no reply", "")
            return m.Warmed(1, 1, 0, 0.01)

    task = get_task("Math/reciprocal")
    child = BuildChild()
    assert warm_up.build(child, task, guard.shared, 60.0) >= 0 and child.shared_during == 1 and guard.sharers == 0
    with pytest.raises(Rejected) as raised:
        warm_up.build(BuildChild("timeout"), task, guard.shared, 60.0)
    assert raised.value.reason == Reason.PERF_TIMEOUT and guard.sharers == 0
    with pytest.raises(ChildFailed):
        warm_up.build(BuildChild("crash"), task, guard.shared, 60.0)
    unasked = BuildChild()
    monkeypatch.setattr(warm_up, "WARM_BUILD_BYTES", 0)  # a case 0 too large to wait with the candidate
    assert warm_up.build(unasked, task, guard.shared, 60.0) == 0.0 and unasked.shared_during is None


def test_the_candidate_process_builds_perf_case_zero_and_stages_the_held_outputs_it_is_told(monkeypatch) -> None:
    """WarmBuild builds perf case 0's inputs once; WarmPerf(hold) stages a host buffer per output tensor of each
    perf case, as the parent's layouts say (held_layouts), within STAGING_BYTES; a message that crossed the
    channel stages the same."""
    from kernelbenchx.evaluator.child import harness as child_harness
    from kernelbenchx.evaluator.measure import perf_case
    from kernelbenchx.evaluator.measure import protocol as timing

    harness = child_harness.Harness()
    harness.perf_task, harness.device = get_task("Math/reciprocal"), "cpu"
    built: list = []
    real_build = perf_case.build_case
    monkeypatch.setattr(perf_case, "build_case", lambda *args: built.append(args[1:]) or real_build(*args))
    assert harness.warm_build(m.WarmBuild()).warmed == 1 and built == [(0, 0, "cpu")]
    monkeypatch.setattr(timing, "_empty", lambda shape, dtype, pin_memory: torch.empty(shape, dtype=dtype))
    held = warm_up.held_layouts(harness.perf_task.id)
    assert len(held) == perf_case_count(harness.perf_task) and all(held)
    harness.stage_held_outputs(m.decode(m.encode(m.WarmPerf(held))[m.HEADER.size:]).hold)
    assert sorted(harness.staged) == list(range(len(held)))
    for index, buffers in harness.staged.items():
        assert tuple((tuple(b.shape), str(b.dtype).removeprefix("torch.")) for b in buffers) == held[index]
    monkeypatch.setattr(child_harness, "STAGING_BYTES", 0)
    harness.stage_held_outputs(held)
    assert all(buffers == [] for buffers in harness.staged.values())


def test_the_parent_builds_every_tasks_correctness_layouts_as_the_reference_server_does() -> None:
    """case_layouts: the distinct layouts of a task's correctness cases, built in the parent before the expected
    outputs arrive. The same seeds give the same layouts every time (a builder drawing from global state would
    make the warm-up compile for inputs the cases never have), and they are those of the rows the reference
    server sends."""
    from kernelbenchx.dataset.registry import all_tasks

    seed = 987654321
    first = {task_id: warm_up.case_layouts(task_id, seed) for task_id in all_tasks()}
    warm_up.case_layouts.cache_clear()
    assert all(first[task_id] is not None and repr(first[task_id]) == repr(warm_up.case_layouts(task_id, seed))
               for task_id in all_tasks())  # repr: a NaN scalar argument is not equal to itself
    from kernelbenchx.dataset.cases import build_cases

    task = get_task("Activation/gelu")
    rows = {"stage1": [m.ExpectedRow(name, call.to_payload(), None) for name, call in build_cases(task, None)],
            "stage2": [m.ExpectedRow(name, call.to_payload(), None) for name, call in build_cases(task, seed)]}
    assert repr(warm_up.row_layouts(rows)) == repr(first[task.id])


def test_the_correctness_warm_up_goes_before_the_expected_outputs_and_falls_back_to_their_rows(monkeypatch) -> None:
    from types import SimpleNamespace

    from kernelbenchx.evaluator.parent import candidate
    from kernelbenchx.evaluator.parent.context import Slots

    class Child(WarmChild):
        def extend_clock(self, seconds: float) -> None:
            self.clock.append(seconds)

    learned = []
    modules = SimpleNamespace(learn=lambda reported: learned.append(reported) or (len(reported), 0))
    run = SimpleNamespace(config=SimpleNamespace(warm_up=True), on_cpu=False, compile_slots=Slots(1),
                          stage2_seed=lambda task_id: 5, triton_modules=modules)
    task, log = get_task("Activation/gelu"), SimpleNamespace(correct={})
    child = Child(m.Warmed(3, 3, 2, 0.5, (), observation(), (("*fp32", "i32"),)))
    assert candidate.warm_correctness(child, task, run, log)
    assert child.request.calls == warm_up.case_layouts(task.id, 5) and log.correct["warm"]["slot_wait_s"] == 0
    assert learned == [(("*fp32", "i32"),)] and log.correct["warm"]["launchers"] == 1  # for the parent's builds
    monkeypatch.setattr(warm_up, "case_layouts", lambda task_id, seed: None)  # a builder that fails in the parent
    child, log.correct = Child(m.Warmed(3, 3, 2, 0.5, (), observation())), {}
    assert not candidate.warm_correctness(child, task, run, log) and not hasattr(child, "request")
    rows = stage_rows(task.id)
    assert candidate.warm_correctness(child, task, run, log, rows) and child.request.calls == warm_up.row_layouts(rows)
    cpu_run = SimpleNamespace(**{**vars(run), "on_cpu": True})
    child = Child(m.Warmed(3, 3, 2, 0.5, (), observation()))
    assert candidate.warm_correctness(child, task, cpu_run, log) and not hasattr(child, "request")


def test_prepare_pays_the_fake_tensor_imports_before_a_candidate_without_touching_cuda() -> None:
    """warm.prepare() runs in every GPU candidate process before its first request: afterwards the first fake
    call imports nothing more, and CUDA is still uninitialised (the pool's processes must not hold a context)."""
    import subprocess
    import sys

    probe = ("import sys, time, torch\n"
             "from kernelbenchx.evaluator.child import warm\n"
             "assert 'torch._dynamo' not in sys.modules\n"
             "warm.prepare()\n"
             "before = set(sys.modules)\n"
             "from torch._subclasses.fake_tensor import FakeTensorMode\n"
             "with FakeTensorMode(allow_non_fake_inputs=True):\n"
             "    torch.nn.functional.gelu(torch.empty(4, 4)).sum()\n"
             "print(len(set(sys.modules) - before), torch.cuda.is_initialized())\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "False"], out.stdout
