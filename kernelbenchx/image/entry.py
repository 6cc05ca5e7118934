"""The entrypoint of a kbx-eval image: `kbx eval` under one convention.

    docker run --rm --network none --user "$(id -u):$(id -g)" -v "$PWD:/work" kbx-eval:cpu /work/submission.jsonl

The submission and the results live under a folder mounted at /work; results go to /work/results unless
--out says otherwise, written as the caller's uid (`--user`). Before anything runs, the mount is checked:
nothing mounted at /work, a submission outside it, or a results folder this uid cannot write ends with one
line saying what to change, and exit status 2. Every other argument is `kbx eval`'s.

`--check-facts` is the last step of an image build: the labels (given as build args) must equal what the
image holds, recomputed from the installed package, torch and triton.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from kernelbenchx.errors import USAGE
from kernelbenchx.image.targets import DEFAULT_OUT, WORK

RUN = ('docker run --rm --init --network none --user "$(id -u):$(id -g)" -v "$PWD:/work" kbx-eval:{target} '
       '/work/submission.jsonl')


def mount_points_text(mountinfo: str) -> list[Path]:
    """Mount points in /proc/self/mountinfo's format: the fifth field of each line, octal escapes decoded."""
    points = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 4:
            points.append(Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])))
    return points


def mount_points() -> list[Path]:
    return mount_points_text(Path("/proc/self/mountinfo").read_text())


def out_dir(args: Sequence[str]) -> Path:
    for i, arg in enumerate(args):
        if arg == "--out" and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("--out="):
            return Path(arg.split("=", 1)[1])
    return DEFAULT_OUT


def submission_arg(args: Sequence[str]) -> str | None:
    """The first positional argument (options of `kbx eval` that take a value are skipped with it)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("--"):
            skip = "=" not in arg and arg not in FLAGS
        else:
            return arg
    return None


FLAGS = {"--resume", "--overwrite", "--perf", "--no-perf", "--require-isolation", "--no-require-isolation",
         "--no-resume", "--no-overwrite", "--help"}


def writable(path: Path) -> bool:
    """Whether this uid can create files where `path` is (or would be created): tried, not guessed."""
    existing = path
    while not existing.exists():
        existing = existing.parent
    try:
        fd, probe = tempfile.mkstemp(prefix=".kbx-write-check-", dir=existing)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


def check_work(args: Sequence[str], work: Path = WORK, mounts: Sequence[Path] | None = None) -> str | None:
    """What is wrong with the /work convention for these arguments, or None."""
    mounts = mount_points() if mounts is None else mounts
    run = RUN.format(target=os.environ.get("KBX_TARGET", "TARGET"))
    if not any(m == work or work in m.parents for m in mounts):
        return f"nothing is mounted at {work}: mount the folder that holds your submission, e.g. {run}"
    submission = submission_arg(args)
    if submission is None:
        return f"no submission given: {run}"
    path = Path(work, submission)  # relative paths are relative to /work (the working directory)
    if not path.exists():
        return f"{path} does not exist in the container: put the submission under the folder mounted at {work}"
    out = Path(work, out_dir(args))
    if not writable(out):
        return (f"{out} is not writable by uid {os.getuid()} (gid {os.getgid()}): run the container as the owner "
                f"of the mounted folder (--user \"$(id -u):$(id -g)\") or make the folder writable")
    return None


def check_facts(env: Mapping[str, str], lock: Path = Path(sys.prefix, "lock.txt")) -> list[str]:
    """Labels (build args in `env`) that differ from what this image holds (`lock`: the lock it installed)."""
    import torch
    import triton

    from kernelbenchx import __version__
    from kernelbenchx.evaluator.measure.environment import task_set_hash
    from kernelbenchx.image.targets import GOLDEN_DIR, get_target, sha256

    target = get_target(env.get("TARGET", ""))
    golden = GOLDEN_DIR / f"{target.name}.json"
    held = {"KBX_VERSION": __version__, "TASK_SET_SHA256": task_set_hash(),
            "GOLDEN_SHA256": sha256(golden) if golden.exists() else "none", "TORCH_BUILD": torch.__version__,
            "TRITON_BUILD": triton.__version__, "LOCK_SHA256": sha256(lock) if lock.exists() else "missing"}
    problems = [f"{key}: the label says {env.get(key)!r}, the image holds {value!r}"
                for key, value in held.items() if env.get(key) != value]
    if torch.__version__ != target.torch:
        problems.append(f"torch {torch.__version__} is not the {target.name} target's build {target.torch}")
    problems += [f"{key} is empty" for key in ("KBX_COMMIT", "DATASET_REVISION") if not env.get(key)]
    return problems


def say_missing_layers() -> None:
    """Containers usually lack a layer (Docker's default seccomp profile refuses user namespaces): say which,
    once, before the run (every record says it too). The probe is cached: the run reuses it."""
    from kernelbenchx.evaluator.isolation import probe

    for layer, why in probe(True).missing.items():
        print(f"kbx-eval: isolation layer {layer} is missing here: {why}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--check-facts"]:
        problems = check_facts(os.environ)
        for problem in problems:
            print(f"kbx-eval image: {problem}", file=sys.stderr)
        if problems:
            print("build the image with `kbx image build` (it computes the labels)", file=sys.stderr)
        sys.exit(1 if problems else 0)
    if args and not {"--help", "-h"} & set(args):
        problem = check_work(args)
        if problem:
            print(f"kbx-eval: {problem}", file=sys.stderr)
            sys.exit(USAGE)
        if not any(a == "--out" or a.startswith("--out=") for a in args):
            args += ["--out", str(DEFAULT_OUT)]
        say_missing_layers()
    from kernelbenchx.cli import app

    app(["eval", *args], prog_name="kbx")


if __name__ == "__main__":
    main()
