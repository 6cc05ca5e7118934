"""`kbx image build --target cpu|h100`: assemble a small build context from the source checkout, compute
the labels, and build containers/Dockerfile with BuildKit.

The context holds only what the image needs (the package, pyproject.toml, README.md, the Dockerfile, the
target's lock and, when found on disk, the target's torch wheel that PyPI does not carry). The host's CA bundle
(PIP_CERT, SSL_CERT_FILE or REQUESTS_CA_BUNDLE, for HTTPS-intercepting proxies) is passed as the build secret
`ca`: it is mounted for the pip step only and is in no layer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernelbenchx.dataset.provenance import git
from kernelbenchx.image import ImageError, engine
from kernelbenchx.image.targets import LABELS, ROOT, Target, build_args, dataset_revision, get_target, source_commit

CONTEXT_FILES = ("pyproject.toml", "README.md", "containers/Dockerfile", "containers/os-packages.txt")
CA_VARIABLES = ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


@dataclass(frozen=True)
class BuildPlan:
    """Everything one build uses; `command(context)` is the docker invocation."""

    target: Target
    tag: str
    args: dict[str, str]
    wheel: Path | None  # the target's local torch wheel, copied into the context
    ca_file: Path | None  # the build secret `ca`
    files: tuple[str, ...] = field(default=())  # repository paths the context holds

    def command(self, cli: list[str], context: Path) -> list[str]:
        argv = [*cli, "--progress=plain", "-f", str(context / "containers" / "Dockerfile"), "-t", self.tag]
        for key, value in self.args.items():
            argv += ["--build-arg", f"{key}={value}"]
        if self.ca_file is not None:
            argv += ["--secret", f"id=ca,src={self.ca_file}"]
        return [*argv, str(context)]

    @property
    def labels(self) -> dict[str, str]:
        return {LABELS[k]: v for k, v in self.args.items() if k in LABELS}


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    id: str
    size_bytes: int
    labels: dict[str, str]
    seconds: float


def plan_build(target: str = "cpu", tag: str | None = None, base: str | None = None, wheels: Path | None = None,
               ca_file: Path | None = None) -> BuildPlan:
    chosen = get_target(target)
    if not (ROOT / "containers" / "Dockerfile").exists():
        raise ImageError(f"no containers/Dockerfile under {ROOT}", hint="build images from a clone of the repository")
    if not chosen.lock.exists():
        raise ImageError(f"no lock for target {chosen.name}", hint="make it with: python containers/lock.py "
                                                                   f"{chosen.name}")
    args = build_args(chosen, source_commit(), dataset_revision())
    wheel = find_wheel(chosen, wheels)
    if chosen.torch_index and wheel is None:
        args["TORCH_INDEX"] = chosen.torch_index
    if base:
        args["BASE"] = base
    return BuildPlan(chosen, tag or f"kbx-eval:{chosen.name}", args, wheel, find_ca(ca_file), context_files(chosen))


def find_wheel(target: Target, wheels: Path | None) -> Path | None:
    """The target's local torch wheel in `wheels`, $KBX_WHEELS or a $PIP_FIND_LINKS folder (None: from its index)."""
    if target.local_wheel is None:
        return None
    folders = [wheels] if wheels else [Path(p) for p in (os.environ.get("KBX_WHEELS", "") + " " +
                                                         os.environ.get("PIP_FIND_LINKS", "")).split() if p]
    for folder in folders:
        if (folder / target.local_wheel).is_file():
            return folder / target.local_wheel
    if wheels:
        raise ImageError(f"{target.local_wheel} is not in {wheels}")
    return None


def find_ca(ca_file: Path | None) -> Path | None:
    if ca_file is not None:
        if not ca_file.is_file():
            raise ImageError(f"CA bundle {ca_file} does not exist")
        return ca_file.resolve()
    for name in CA_VARIABLES:
        value = os.environ.get(name)
        if value and Path(value).is_file():
            return Path(value).resolve()
    return None


def context_files(target: Target) -> tuple[str, ...]:
    """The package's files as the checkout has them (tracked and untracked, never ignored ones)."""
    listed = git("ls-files", "--cached", "--others", "--exclude-standard", "--", "kernelbenchx")
    if listed is None:
        raise ImageError(f"cannot list the files of {ROOT}", hint="build images from a git clone of the repository")
    package = sorted({p for p in listed.splitlines() if (ROOT / p).is_file()})
    return (*CONTEXT_FILES, str(target.lock.relative_to(ROOT)), *package)


def assemble(plan: BuildPlan, context: Path) -> None:
    for rel in plan.files:
        dest = context / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest)
    wheels = context / "containers" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    if plan.wheel is not None:
        try:
            os.link(plan.wheel, wheels / plan.wheel.name)
        except OSError:
            shutil.copy2(plan.wheel, wheels / plan.wheel.name)


def build_image(plan: BuildPlan) -> BuiltImage:
    """Run the build (its output goes to this process's stdout and stderr) and inspect the result."""
    client = engine.client()
    cli, env = engine.buildkit_command()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kbx-image-") as tmp:
        assemble(plan, Path(tmp))
        done = subprocess.run(plan.command(cli, Path(tmp)), env={**os.environ, **env})
    if done.returncode != 0:
        raise ImageError(f"docker build of {plan.tag} failed (exit {done.returncode})",
                         hint="its output above says which step; behind a proxy pass --ca-file")
    image = client.images.get(plan.tag)
    labels = image.labels or {}
    wrong = {k: (v, labels.get(k)) for k, v in plan.labels.items() if labels.get(k) != v}
    if wrong:
        raise ImageError(f"{plan.tag} carries other labels than the build asked for: {wrong}")
    return BuiltImage(plan.tag, image.id, int(image.attrs.get("Size", 0)), labels, time.monotonic() - started)
