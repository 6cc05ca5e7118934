"""`kbx eval --image TAG SUBMISSION --out OUT`: the same evaluation, inside a kbx-eval image, through the docker
SDK.

The container follows the image's convention (kernelbenchx/image/entry.py): the submission is mounted read-only
under /work, OUT (created here, owned by the caller) at /work/results, and it runs as the caller's uid and gid,
with no network, a PID limit, tini as PID 1 (orphans are reaped), the host's GPUs when the image's target has
them, and the image's ID in KBX_IMAGE_ID (records carry it as environment.image_id). The run directory on this
host is returned with the container's exit status.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kernelbenchx.errors import INTERRUPTED, SubmissionError, UsageError
from kernelbenchx.evaluator.parent.context import RunConfig
from kernelbenchx.image import ImageError, engine
from kernelbenchx.image.targets import DEFAULT_OUT, WORK
from kernelbenchx.image.targets import LABELS, get_target

IN = WORK / "in"


@dataclass(frozen=True)
class Limits:
    """The container's limits (kbx's own per-candidate limits still apply inside)."""

    memory: str | None = None  # e.g. "32g"; None: the host's
    cpus: float | None = None  # None: all of the host's
    pids: int = 4096
    shm_size: str = "2g"  # torch's shared-memory tensors; Docker's default is 64 MB


@dataclass(frozen=True)
class ImageRun:
    out_dir: Path  # the run directory on this host
    exit_code: int  # the container's (kbx eval's) exit status
    image_id: str
    target: str


def eval_args(config: RunConfig, submission: Path) -> list[str]:
    """`kbx eval` arguments inside the container for `config` (paths as the container sees them)."""
    if config.ray is not None:
        raise UsageError("--ray cannot be combined with --image", hint="run Ray workers from the image instead")
    args = [str(submission), "--out", str(DEFAULT_OUT), "--workers", str(config.workers),
            "--timeout", str(config.timeout_s), "--perf-timeout", str(config.perf_timeout_s),
            "--baselines", ",".join(config.baselines), "--task-set", config.task_set]
    args += ["--resume"] * config.resume + ["--overwrite"] * config.overwrite + ["--no-perf"] * (not config.perf)
    args += ["--no-warm-up"] * (not config.warm_up)
    args += ["--require-isolation"] * config.require_isolation
    args += ["--compile-slots", str(config.compile_slots), "--compile-threads", str(config.compile_threads),
             "--order", config.order, "--judge-processes", str(config.judge_processes),
             "--device-opens", str(config.device_opens)]
    args += ["--quiet-host"] * config.quiet_host + ["--no-fork-server"] * (not config.fork_server)
    args += ["--device", config.device] * (config.device is not None) + ["--seed", str(config.seed)] * (
        config.seed is not None)
    return args


def container_spec(image_id: str, labels: dict[str, str], submission: Path, out_dir: Path, config: RunConfig,
                   limits: Limits, user: str) -> dict[str, Any]:
    """Keyword arguments of the SDK's `containers.run` for one evaluation."""
    from docker.types import DeviceRequest, Mount

    target = get_target(labels.get(LABELS["TARGET"], ""))
    inside = IN / submission.name
    spec: dict[str, Any] = {
        "image": image_id, "command": eval_args(config, inside), "detach": True, "network_mode": "none",
        "user": user, "init": True, "pids_limit": limits.pids, "shm_size": limits.shm_size,
        "environment": {"KBX_IMAGE_ID": image_id},
        "mounts": [Mount(str(inside), str(submission), type="bind", read_only=True),
                   Mount(str(DEFAULT_OUT), str(out_dir), type="bind", read_only=False)],
        "device_requests": [DeviceRequest(count=-1, capabilities=[["gpu"]])] if target.gpus else [],
    }
    if limits.memory:
        spec["mem_limit"] = limits.memory
    if limits.cpus:
        spec["nano_cpus"] = int(limits.cpus * 1e9)
    return spec


def eval_in_image(tag: str, submission: str | Path, config: RunConfig, limits: Limits = Limits(),
                  log: Callable[[str], Any] = sys.stderr.write) -> ImageRun:
    """Evaluate `submission` in image `tag`; the container's output goes to `log` as it comes."""
    import docker

    submission = Path(submission).resolve()
    if not submission.exists():
        raise SubmissionError(f"submission not found: {submission}")
    out_dir = Path(config.out_dir or "results").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)  # made here, so it belongs to the caller
    client = engine.client()
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        raise ImageError(f"no image {tag} on this engine", hint="build it: kbx image build --target cpu") from None
    spec = container_spec(image.id, image.labels or {}, submission, out_dir, config, limits,
                          f"{os.getuid()}:{os.getgid()}")
    container = client.containers.run(**spec)
    try:
        for chunk in container.logs(stream=True, follow=True):
            log(chunk.decode(errors="replace"))
        code = int(container.wait()["StatusCode"])
    except KeyboardInterrupt:
        container.stop(timeout=20)  # SIGTERM: kbx saves what finished and exits 130
        code = INTERRUPTED
    finally:
        container.remove(force=True)
    return ImageRun(out_dir, code, image.id, image.labels.get(LABELS["TARGET"], "?"))
