"""The container engine: the docker SDK client (inspecting, running) and a docker CLI that runs BuildKit
builds (the SDK has no BuildKit, so it cannot pass build secrets: docker/docker-py#2230)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from kernelbenchx.image import ImageError

NO_ENGINE_HINT = "start the Docker engine (dockerd) or point DOCKER_HOST at one"


def client() -> Any:
    """A docker SDK client for the engine DOCKER_HOST names (the local socket by default), checked alive."""
    try:
        import docker
    except ImportError:
        raise ImageError("the docker Python SDK is not installed", hint="pip install docker") from None
    try:
        engine = docker.from_env(version="auto")
        engine.ping()
    except docker.errors.DockerException as exc:
        raise ImageError(f"no Docker engine is reachable: {exc}", hint=NO_ENGINE_HINT) from None
    return engine


def docker_executables() -> list[Path]:
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        path = Path(folder or ".", "docker")
        if path.is_file() and os.access(path, os.X_OK) and path.resolve() not in [p.resolve() for p in found]:
            found.append(path)
    return found


def buildkit_command() -> tuple[list[str], dict[str, str]]:
    """The first docker CLI on PATH that runs BuildKit builds: `docker buildx build --load` where the buildx
    plugin works, else a CLI older than 23 (`DOCKER_BUILDKIT=1 docker build`; later ones need buildx)."""
    for path in docker_executables():
        if run_quiet([str(path), "buildx", "version"]).returncode == 0:
            return [str(path), "buildx", "build", "--load"], {}
        version = run_quiet([str(path), "version", "--format", "{{.Client.Version}}"]).stdout.strip()
        major = version.split(".", 1)[0]
        if major.isdigit() and int(major) < 23:
            return [str(path), "build"], {"DOCKER_BUILDKIT": "1"}
    raise ImageError("no docker CLI on PATH can run BuildKit builds",
                     hint="install the docker CLI with its buildx plugin (or Debian's docker.io)")


def run_quiet(argv: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return subprocess.CompletedProcess(argv, 127, "", str(exc))
