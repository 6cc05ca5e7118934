"""Candidate processes forked from the zygote (evaluator/forkserver.py, child/zygote.py): what a forked process
sees from candidate code is what an exec'd one sees (its own namespaces, descriptors and environment), its end is
reported the same way, the parent can still kill it, and when the zygote cannot serve the process is exec'd."""

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from kernelbenchx.evaluator import isolation
from kernelbenchx.evaluator import messages as m
from kernelbenchx.evaluator.forkserver import ForkServer
from kernelbenchx.evaluator.parent.candidate import HARNESS
from kernelbenchx.evaluator.parent.references import device_env
from kernelbenchx.evaluator.process import Child, ChildFailed, Limits

PLAN = isolation.probe()
LIMITS = Limits(wall_s=120)
REGION = ("replies", 1 << 20)

# candidate code that reports what it sees by failing its import with it (LoadFailed carries the message)
PROBE = """
import json, os, sys
fds = {}
for fd in os.listdir("/proc/self/fd"):
    try:
        fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the listing's own descriptor
        pass
seen = {"pid": os.getpid(), "interfaces": open("/proc/net/dev").read().count(":"), "fds": fds, "cwd": os.getcwd(),
        "home": os.environ.get("HOME"), "env": sorted(os.environ), "torch_loaded": "torch" in sys.modules,
        "threads": len(os.listdir("/proc/self/task"))}
raise RuntimeError(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def zygote():
    template = Child(HARNESS, LIMITS, PLAN, env=device_env("cpu", None), bulk_region=REGION)
    server = ForkServer(template.environment(), PLAN)
    template.close()
    server.start()
    assert server.ready.wait(120) and server.serving, server.why
    yield server
    server.close()


def candidate(forks, **kwargs) -> Child:
    return Child(HARNESS, LIMITS, PLAN, env=device_env("cpu", None), candidate=True, bulk_region=REGION,
                 forks=forks, **kwargs)


def kinds(fds: dict[str, str]) -> list[str]:
    return sorted(re.sub(r"\[\d+\]|kbx-\w+", "", link) for link in fds.values())


def probe(child: Child) -> dict:
    child.call(m.OpenDevice("cpu"))
    reply = child.call(m.Load(PROBE, "f", "Activation/relu", "cpu"))
    assert isinstance(reply, m.LoadFailed), reply
    return json.loads(reply.message)


def test_a_forked_process_sees_what_an_exec_one_sees(zygote):
    seen = {}
    for forks in (zygote, None):
        with candidate(forks) as child:
            assert child.forked == (forks is not None)
            seen[child.forked] = probe(child)
            seen[child.forked]["workdir"] = str(child.workdir)
    forked, execd = seen[True], seen[False]
    for view in (forked, execd):
        assert view["cwd"] == view["home"] == view["workdir"]
        assert view["threads"] == 1 and view["torch_loaded"]
        assert len(view["fds"]) == 7, view["fds"]  # request pipe, logs, /dev/null, bulk, Landlock, reply pipe
    assert forked["env"] == execd["env"]
    assert kinds(forked["fds"]) == kinds(execd["fds"]), (forked["fds"], execd["fds"])  # nothing of the zygote's
    if "namespaces" in PLAN.missing:
        pytest.skip(f"namespaces unavailable here: {PLAN.missing['namespaces']}")
    for view in (forked, execd):
        assert view["pid"] == 2  # its own PID namespace (Landlock hides /proc's listing), and not its PID 1
        assert view["interfaces"] == 1  # the loopback interface, down


def test_two_forked_processes_do_not_see_each_other(zygote):
    if "namespaces" in PLAN.missing:
        pytest.skip(f"namespaces unavailable here: {PLAN.missing['namespaces']}")
    with candidate(zygote) as first, candidate(zygote) as second:
        assert first.forked and second.forked and first.proc.pid != second.proc.pid
        assert probe(first)["pid"] == probe(second)["pid"] == 2  # one PID namespace each


def test_a_forked_process_that_crashes_is_reported_like_an_exec_one(zygote):
    crash = "import ctypes\nctypes.string_at(0)\n"
    messages = {}
    for forks in (zygote, None):
        with candidate(forks) as child:
            child.call(m.OpenDevice("cpu"))
            with pytest.raises(ChildFailed) as failed:
                child.call(m.Load(crash, "f", "Activation/relu", "cpu"))
            messages[child.forked] = (failed.value.kind, str(failed.value))
    assert messages[True] == messages[False]
    assert messages[True][0] == "crash" and ("139" in messages[True][1] or "SIGSEGV" in messages[True][1])


def test_a_forked_process_past_its_time_is_killed_with_its_namespace(zygote):
    with candidate(zygote) as child:
        child.call(m.OpenDevice("cpu"))
        with pytest.raises(ChildFailed) as failed:
            child.call(m.Load("import time\ntime.sleep(60)\n", "f", "Activation/relu", "cpu"), timeout=2)
        assert failed.value.kind == "timeout"
        assert child.proc.poll() is not None  # the zygote reported its end
        deadline = time.monotonic() + 20
        with pytest.raises(ProcessLookupError):  # nothing left of its process group, not even a zombie
            while time.monotonic() < deadline:
                os.killpg(child.proc.pid, 0)
                time.sleep(0.05)


def test_a_process_whose_environment_differs_is_exec_d(zygote):
    env = {**device_env("cpu", None), "KBX_CPUS": "0"}
    with Child(HARNESS, LIMITS, PLAN, env=env, candidate=True, forks=zygote) as child:
        assert not child.forked
        assert isinstance(child.call(m.OpenDevice("cpu")), m.DeviceOpened)


def test_a_zygote_that_dies_takes_its_forks_with_it_and_is_started_again_a_few_times(monkeypatch):
    """A zygote killed (say, by the out-of-memory killer) ends its forks with it; the next process comes from a new
    zygote, up to RESTARTS times per server; after that every process is exec'd."""
    from kernelbenchx.evaluator import forkserver

    monkeypatch.setattr(forkserver, "RESTARTS", 1)
    template = Child(HARNESS, LIMITS, PLAN, env=device_env("cpu", None), bulk_region=REGION)
    server = ForkServer(template.environment(), PLAN)
    template.close()
    server.start()

    def kill_zygote_under(child: Child) -> None:
        generation = server.generation
        server.proc.send_signal(signal.SIGKILL)
        assert child.proc.wait(timeout=30) == -signal.SIGKILL
        deadline = time.monotonic() + 30
        while not server.died and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.died and not server.serving and "ended" in server.why and server.generation == generation

    try:
        with candidate(server) as orphan:
            assert orphan.forked
            orphan.call(m.OpenDevice("cpu"))
            kill_zygote_under(orphan)
        with candidate(server) as revived:
            assert revived.forked and server.restarts == 1 and server.generation == 2
            assert isinstance(revived.call(m.OpenDevice("cpu")), m.DeviceOpened)
            kill_zygote_under(revived)
        with candidate(server) as after:
            assert not after.forked and server.restarts == 1
            assert isinstance(after.call(m.OpenDevice("cpu")), m.DeviceOpened)
    finally:
        server.close()


def test_a_zygote_with_a_thread_does_not_serve():
    server = ForkServer({}, PLAN)
    server.on_ready({"threads": 2, "namespaces": True})
    assert not server.serving and "2 threads" in server.why
    assert server.spawn({}, server.workdir, [], None) is None
    server.close()


def test_an_unprivileged_non_dumpable_process_enters_its_namespaces():
    """The zygote is not dumpable and, when kbx runs as root, runs as nobody: its forks must still map their uid
    in a new user namespace (a non-dumpable process's /proc/self/uid_map belongs to root; run 62 failed so).
    child/boot.py needs only the standard library, so a system Python runs it as nobody here."""
    import shutil
    import subprocess
    import tempfile
    import textwrap

    from kernelbenchx.evaluator.child import boot

    python, setpriv = shutil.which("python3", path="/usr/bin:/bin"), shutil.which("setpriv")
    if os.geteuid() != 0 or not python or not setpriv or "namespaces" in PLAN.missing:
        pytest.skip("needs root (to become nobody), setpriv, a system python3 and user namespaces")
    tmp_path = Path(tempfile.mkdtemp(prefix="kbx-nobody-"))  # pytest's own directories are root's alone
    tmp_path.chmod(0o755)
    shutil.copy(boot.__file__, tmp_path / "kbxboot.py")
    (tmp_path / "probe.py").write_text(textwrap.dedent("""
        import ctypes, os, sys
        sys.path.insert(0, sys.argv[1])
        import kbxboot as boot
        ctypes.CDLL(None).prctl(boot.PR_SET_DUMPABLE, 0, 0, 0, 0)  # as the zygote
        if os.fork() == 0:
            boot.enter_namespaces()  # returns in the namespace's PID 1
            os._exit(0 if os.getpid() == 1 and [p for p in os.listdir("/proc") if p.isdigit()] == ["1"] else 3)
        print(os.waitstatus_to_exitcode(os.wait()[1]))
    """))
    for path in tmp_path.iterdir():
        path.chmod(0o644)
    done = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python,
                           str(tmp_path / "probe.py"), str(tmp_path)], capture_output=True, text=True, timeout=60)
    shutil.rmtree(tmp_path)
    assert done.stdout.strip() == "0", done.stderr[-2000:]


def test_a_fork_the_host_refuses_is_a_refusal_not_the_zygotes_end(monkeypatch):
    """A candidate may use up the user's process limit; the zygote then answers the request with a refusal (the
    parent execs that process, or fails it) and keeps serving, and the descriptors it was sent are closed."""
    import socket

    from kernelbenchx.evaluator.child import zygote as z

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(z.os, "fork", no_fork)
    monkeypatch.setattr(z, "thread_count", lambda: 1)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fds = [fd for _ in range(2) for fd in os.pipe()]
    forked = set()
    z.fork_candidate(theirs, {"env": {}, "cwd": "/", "namespaces": False, "bulk": None}, fds, forked)
    assert json.loads(ours.recv(4096)) == {"refused": "fork failed: [Errno 11] Resource temporarily unavailable"}
    assert forked == set()
    for fd in fds:
        with pytest.raises(OSError):
            os.fstat(fd)
    ours.close()
    theirs.close()


def test_a_zygote_that_never_gets_ready_is_given_up_once(monkeypatch):
    """Processes wait for the zygote's imports once, up to READY_S; after that every start is exec'd at once."""
    from kernelbenchx.evaluator import forkserver

    monkeypatch.setattr(forkserver, "READY_S", 0.2)
    server = ForkServer({}, PLAN)  # never started: never ready
    started = time.monotonic()
    assert server.spawn({}, server.workdir, [], None) is None
    assert server.spawn({}, server.workdir, [], None) is None
    assert time.monotonic() - started < 0.35 and "not ready after" in server.why
    server.close()


def test_a_stop_reaches_every_process_of_a_forked_candidate(zygote):
    """parent/host_quiet.py stops a candidate by its process group: for a forked one that group holds the fork, its
    namespace's PID 1 and the harness inside, and all of them stop and go on again."""
    def group(pgid: int) -> dict[int, str]:
        members = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                members[int(stat.parent.name)] = fields[0]
        return members

    with candidate(zygote) as child:
        child.call(m.OpenDevice("cpu"))
        pgid = child.proc.pid
        assert len(group(pgid)) == (1 if "namespaces" in PLAN.missing else 3), group(pgid)
        os.killpg(pgid, signal.SIGSTOP)
        deadline = time.monotonic() + 20
        while set(group(pgid).values()) != {"T"}:
            assert time.monotonic() < deadline, group(pgid)
            time.sleep(0.01)
        os.killpg(pgid, signal.SIGCONT)
        assert isinstance(child.call(m.OpenDevice("cpu"), timeout=30), m.DeviceOpened)
