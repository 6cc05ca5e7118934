"""Each OS isolation layer, tried from code running as a candidate does: the forbidden thing is refused.
(tests/adversarial/ does the same through the whole pipeline, with static checks off.)"""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from kernelbenchx.evaluator import isolation
from tests.conftest import ROOT

PLAN = isolation.probe()


def confined(script: str, tmp_path, layers=("landlock", "seccomp"), namespaces=False) -> dict:
    """Run `script` in a fresh Python that confines itself like the candidate harness; the script fills the
    dict `seen` with what it observed, which comes back as JSON on stdout."""
    prelude = textwrap.dedent(f"""
        import json, os, sys
        from pathlib import Path
        os.environ["KBX_CONFINE"] = json.dumps({dict.fromkeys(layers, True)!r})
        from kernelbenchx.evaluator.child import confine
        workdir = Path({str(tmp_path / 'work')!r})
        workdir.mkdir(exist_ok=True)
        applied = confine.apply(workdir, "cpu", [])
        seen = {{"applied": applied}}
        def attempt(name, fn):
            try:
                fn()
                seen[name] = "allowed"
            except Exception as exc:
                seen[name] = type(exc).__name__
    """)
    code = prelude + textwrap.dedent(script) + "\nprint(json.dumps(seen))\n"
    argv = [sys.executable, "-c", code]
    if namespaces:
        argv = PLAN.wrap(argv)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def needs(layer: str) -> None:
    if layer in PLAN.missing:
        pytest.skip(f"{layer} unavailable here: {PLAN.missing[layer]}")


def test_landlock_leaves_only_the_workdir_writable_and_hides_the_run(tmp_path):
    needs("landlock")
    run_dir = tmp_path / "results"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text("{}\n")
    (run_dir / "run.json").write_text('{"seed": 1}')
    seen = confined(f"""
        attempt("read_seed", lambda: open({str(run_dir / 'run.json')!r}).read())
        attempt("append_results", lambda: open({str(run_dir / 'results.jsonl')!r}, "a").write("x"))
        attempt("list_repo", lambda: os.listdir({str(ROOT)!r}))
        attempt("write_tmp", lambda: open("/tmp/kbx-probe", "w").write("x"))
        attempt("parent_proc", lambda: open(f"/proc/{{os.getppid()}}/environ").read())
        attempt("write_workdir", lambda: (workdir / "scratch").write_text("x"))
        attempt("own_proc", lambda: open("/proc/self/status").read())
        attempt("import_lazily", lambda: __import__("email.mime.text"))
    """, tmp_path, layers=("landlock",))
    assert "landlock" in seen["applied"]
    for name in ("read_seed", "append_results", "list_repo", "write_tmp", "parent_proc"):
        assert seen[name] == "PermissionError", name
    assert seen["write_workdir"] == seen["own_proc"] == seen["import_lazily"] == "allowed"


def test_seccomp_refuses_network_tracing_signals_processes_and_threads(tmp_path):
    needs("seccomp")
    seen = confined("""
        import ctypes, signal, socket, _thread
        attempt("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        attempt("unix_socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
        attempt("kill_parent", lambda: os.kill(os.getppid(), 0))
        attempt("fork", lambda: os.fork())
        attempt("thread", lambda: _thread.start_new_thread(lambda: None, ()))
        libc = ctypes.CDLL(None, use_errno=True)
        seen["ptrace"] = "refused" if libc.ptrace(16, os.getppid(), 0, 0) == -1 else "allowed"
        seen["unshare"] = "refused" if libc.unshare(0x10000000) == -1 else "allowed"
        attempt("signal_self", lambda: os.kill(os.getpid(), 0))
    """, tmp_path, layers=("seccomp",))
    assert "seccomp" in seen["applied"] and "no_new_privs" in seen["applied"]
    assert seen["socket"] == seen["unix_socket"] == seen["kill_parent"] == seen["fork"] == "PermissionError"
    assert seen["thread"] == "RuntimeError"  # "can't start new thread": clone(CLONE_THREAD) got EPERM
    assert seen["ptrace"] == seen["unshare"] == "refused"
    assert seen["signal_self"] == "allowed"


def test_a_thread_started_by_an_unconfined_helper_is_not_the_candidates(tmp_path):
    """The CUDA driver's helper threads predate the confinement and start threads of their own now and then; such
    a thread has no seccomp filter, which every thread candidate code could run in has and passes on. With the
    filter in force only filtered threads count as left behind (a correct selu was rejected for one, run 65)."""
    needs("seccomp")
    script = textwrap.dedent(f"""
        import json, os, threading, time
        from pathlib import Path
        os.environ["KBX_CONFINE"] = json.dumps({{"seccomp": True}})
        from kernelbenchx.evaluator.child import confine, observe
        go, stop = threading.Event(), threading.Event()
        def helper():
            go.wait()
            threading.Thread(target=stop.wait, daemon=True).start()
            stop.wait()
        threading.Thread(target=helper, daemon=True).start()
        before = observe.thread_ids()
        applied = confine.apply(Path({str(tmp_path)!r}), "cpu", [])
        go.set()
        while len(observe.thread_ids()) == len(before):
            time.sleep(0.01)
        seen = {{"applied": applied, "filtered": len(observe.left_running(before, True)),
                 "unfiltered": len(observe.left_running(before, False))}}
        try:
            threading.Thread(target=stop.wait, daemon=True).start()
            seen["own"] = "allowed"
        except RuntimeError:
            seen["own"] = "refused"
        stop.set()
        print(json.dumps(seen))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert "seccomp" in seen["applied"] and seen["own"] == "refused"
    assert seen["unfiltered"] == 1 and seen["filtered"] == 0


def test_a_thread_the_kernel_is_ending_is_not_left_running(tmp_path):
    """PF_EXITING in /proc (a thread past do_exit's start never runs user code again) is the kernel's word, not
    the process's: the leader thread ends itself (pthread_exit) and another thread reads its flags."""
    script = textwrap.dedent("""
        import ctypes, json, os, threading, time
        from kernelbenchx.evaluator.child import observe
        leader = str(os.getpid())
        before = observe.thread_ids() - {leader}
        def watch():
            time.sleep(0.5)
            print(json.dumps({"leader": observe.exiting(leader), "me": observe.exiting(str(threading.get_native_id())),
                              "left": sorted(observe.left_running(before, False)),
                              "named": observe.thread_names(frozenset({leader}))}), flush=True)
            os._exit(0)
        threading.Thread(target=watch).start()
        ctypes.CDLL(None).pthread_exit(None)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["leader"] is True and seen["me"] is False
    assert len(seen["left"]) == 1  # the watcher itself, started after `before`; the ending leader is not counted
    assert seen["named"][0].endswith("[Z]")  # a verdict naming such a thread says what state it is in


def test_a_thread_that_ended_was_not_left_running():
    import threading

    from kernelbenchx.evaluator.child import observe

    before = observe.thread_ids()
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    deadline = time.monotonic() + 5
    while observe.thread_ids() != before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert observe.left_running(before, filtered=False) == frozenset()


def test_a_thread_that_ends_between_its_status_and_its_stat_was_not_left_running(monkeypatch):
    """left_running reads a thread's seccomp mode, then its flags: a thread the kernel releases in between has no
    stat to read, and ended (run 68: two correct candidates rejected for such a thread)."""
    from kernelbenchx.evaluator.child import observe

    gone = "999999999"  # no such thread: its stat cannot be opened
    monkeypatch.setattr(observe, "thread_ids", lambda: frozenset({"1", gone}))
    monkeypatch.setattr(observe, "seccomp_mode", lambda tid: 2)  # read while it still ran, under the filter
    assert observe.exiting(gone) is True
    assert observe.left_running(frozenset({"1"}), filtered=True) == frozenset()
    me = str(threading.get_native_id())
    monkeypatch.setattr(observe, "thread_ids", lambda: frozenset({"1", me}))
    assert observe.exiting(me) is False and observe.left_running(frozenset({"1"}), filtered=True) == {me}


def test_the_compile_pool_is_joined_only_when_each_of_its_threads_has_left(monkeypatch):
    """After Python's join a compile thread still runs its way out for a moment: the join waits until each pool
    thread, looked up by its own id, is gone or being ended by the kernel, even where the listing of
    /proc/self/task shows none (run 70: a thread the join's wait did not hold, then seen by the observation)."""
    from kernelbenchx.evaluator.child import harness as child_harness
    from kernelbenchx.evaluator.child import observe

    class Pool:
        def shutdown(self) -> None:
            pass

        def native_ids(self) -> list[int]:
            return [41, 42]

    reads: list[str] = []

    def exiting(tid: str) -> bool:
        reads.append(tid)
        return tid == "41" or reads.count("42") > 3  # thread 42 is seen on its way out three times

    monkeypatch.setattr(observe, "exiting", exiting)
    monkeypatch.setattr(observe, "left_running", lambda before, filtered: frozenset())  # the listing missed it
    harness = child_harness.Harness()
    harness.threads_alone, harness.filtered = frozenset(), True
    harness.join(Pool())
    assert reads.count("42") == 4


def test_namespaces_hide_other_processes_and_the_network(tmp_path):
    needs("namespaces")
    seen = confined("""
        seen["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        seen["interfaces"] = open("/proc/net/dev").read().count(":")
        import socket
    """, tmp_path, layers=(), namespaces=True)
    assert max(seen["pids"]) < 10, seen["pids"]  # only this namespace's few processes
    assert seen["interfaces"] == 1  # the loopback interface, down


def test_a_trusted_process_is_not_dumpable():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import ctypes
        from kernelbenchx.evaluator.isolation import make_nondumpable
        assert make_nondumpable()
        print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
    """)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert out.stdout.strip() == "0", out.stderr


def test_every_layer_is_either_in_force_or_missing_with_a_reason():
    described = PLAN.describe()
    for layer in isolation.LAYERS:
        if layer == "uid" and os.geteuid() != 0:
            continue
        assert (layer in described["layers"]) != (layer in described["missing"]), layer
        if layer in described["missing"]:
            assert len(described["missing"][layer]) > 20


def test_require_isolation_refuses_a_missing_layer(tmp_path):
    from kernelbenchx.errors import IsolationError
    from kernelbenchx.evaluator.parent.run import Run, RunConfig

    degraded = isolation.Plan(False, None, True, True, {"namespaces": "not here"})
    original = isolation.probe
    isolation.probe = lambda enabled=True: degraded
    try:
        with pytest.raises(IsolationError, match="namespaces"):
            Run(RunConfig(device="cpu", require_isolation=True), 1, "t", True)
    finally:
        isolation.probe = original


def test_the_candidate_environment_holds_no_secret(tmp_path):
    from kernelbenchx.evaluator.process import scrubbed_env

    env = scrubbed_env(tmp_path, {})
    assert not any("KBX" in k for k in env)
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "TRITON_CACHE_DIR", "LANG", "PYTHONDONTWRITEBYTECODE",
                        "OMP_NUM_THREADS", "PYTHONHASHSEED", "CUDA_HOME", "LD_LIBRARY_PATH", "TRITON_PTXAS_PATH",
                        "NVIDIA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                        "NVSHMEM_DISABLE_NVLS"}
    assert json.dumps(env).count(str(tmp_path)) == 3


def test_on_the_gpu_path_only_the_allowed_programs_run(tmp_path):
    """Triton runs ptxas and the C compiler on the GPU path: allowed directories execute (their ELF loader
    too), nothing else does."""
    needs("landlock")
    import shutil as sh

    allowed = os.path.dirname(sh.which("true"))
    script = textwrap.dedent(f"""
        import json, os, subprocess, sys
        from pathlib import Path
        os.environ["KBX_CONFINE"] = json.dumps({{"landlock": True, "seccomp": True}})
        from kernelbenchx.evaluator.child import confine
        work = Path({str(tmp_path)!r})
        confine.apply(work, "cuda", [{allowed!r}])
        seen = {{"allowed": subprocess.run(["true"]).returncode}}
        try:
            subprocess.run([{sys.executable!r}, "-c", "pass"])
            seen["python"] = "ran"
        except PermissionError:
            seen["python"] = "refused"
        print(json.dumps(seen))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["allowed"] == 0 and (seen["python"] == "refused" or sys.executable.startswith(allowed))


POOL_PROBE = """
import gc, json, socket, _thread

def probe():
    seen = {}
    for name, attempt in (("read_outside", lambda: open(SECRET).read()),
                          ("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
                          ("thread", lambda: _thread.start_new_thread(lambda: None, ()))):
        try:
            attempt()
            seen[name] = "allowed"
        except Exception as exc:
            seen[name] = type(exc).__name__
    return seen

pools = [o for o in gc.get_objects() if type(o).__name__ == "ConfinedThreads"]
raise RuntimeError("PROBE " + json.dumps({"pools": len(pools), **(pools[0].submit(probe).result() if pools else {})}))
"""


def harness_process(env_extra=None):
    from kernelbenchx.evaluator.parent.candidate import HARNESS
    from kernelbenchx.evaluator.parent.references import device_env
    from kernelbenchx.evaluator.process import Child, Limits

    return Child(HARNESS, Limits(wall_s=120), PLAN, env={**device_env("cpu", None), **(env_extra or {})})


def test_compile_threads_run_candidate_code_as_confined_as_the_main_thread(tmp_path):
    """The warm-up's compile threads start before the process confines itself (new threads are refused
    after); candidate code that finds them and runs its own work there meets the same sandbox."""
    needs("landlock")
    needs("seccomp")
    from kernelbenchx.evaluator import messages as m

    secret = tmp_path / "secret.txt"
    secret.write_text("the run's seed")
    code = f"SECRET = {str(secret)!r}\n" + POOL_PROBE
    with harness_process() as child:
        reply = child.call(m.Load(code, "f", "Activation/gelu", "cpu", 2))
    assert isinstance(reply, m.LoadFailed) and "PROBE" in reply.message, reply
    seen = json.loads(reply.message.split("PROBE ", 1)[1])
    assert seen["pools"] == 1
    assert seen["read_outside"] == "PermissionError" and seen["socket"] == "PermissionError"
    assert seen["thread"] == "RuntimeError"


def test_compile_threads_kept_alive_by_candidate_code_are_threads_left_behind():
    from kernelbenchx.dataset.registry import get_task
    from kernelbenchx.evaluator import messages as m
    from kernelbenchx.evaluator.parent import warm_up
    from kernelbenchx.evaluator.reasons import Reason, Rejected
    from tests.test_warm_up import SOLUTIONS, stage_rows

    task = get_task("Activation/gelu")
    honest = (SOLUTIONS / f"{task.id}.py").read_text()
    sabotage = honest + "\nimport gc\nfor o in gc.get_objects():\n    if type(o).__name__ == 'ConfinedThreads':\n" \
                        "        type(o).shutdown = lambda self, *a, **k: None\n"
    for code, kept in ((honest, False), (sabotage, True)):
        with harness_process() as child:
            assert isinstance(child.call(m.Load(code, task.entry, task.id, "cpu", 2)), m.Loaded)
            if kept:
                with pytest.raises(Rejected) as info:
                    warm_up.correctness(child, stage_rows(task.id))
                assert info.value.reason is Reason.THREADS and "2 extra" in info.value.message
            else:
                warm_up.correctness(child, stage_rows(task.id))
                assert isinstance(child.call(m.Verify()), m.Symbols)


def test_the_parents_triton_modules_are_readable_not_writable(tmp_path, monkeypatch):
    needs("landlock")
    modules = tmp_path / "modules"
    (modules / "KEY").mkdir(parents=True)
    (modules / "KEY" / "cuda_utils.so").write_bytes(b"module")
    monkeypatch.setenv("KBX_TRITON_MODULES", str(modules))
    seen = confined(f"""
        attempt("read_module", lambda: open({str(modules / 'KEY' / 'cuda_utils.so')!r}, "rb").read())
        attempt("list_modules", lambda: os.listdir({str(modules)!r}))
        attempt("replace_module", lambda: open({str(modules / 'KEY' / 'cuda_utils.so')!r}, "wb").write(b"x"))
        attempt("add_module", lambda: open({str(modules / 'KEY' / 'launcher.so')!r}, "wb").write(b"x"))
    """, tmp_path, layers=("landlock",))
    assert seen["read_module"] == seen["list_modules"] == "allowed"
    assert seen["replace_module"] == seen["add_module"] == "PermissionError"
    assert (modules / "KEY" / "cuda_utils.so").read_bytes() == b"module"
