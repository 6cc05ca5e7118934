"""Evaluation images: the targets they are built for (targets.py), building one (build.py), running a
submission in one (run.py) and the entrypoint inside it (entry.py).

An image is a Debian base, a virtual environment whose every package is pinned by hash
(containers/lock/<target>.txt, made by containers/lock.py) and this package; its labels say which kbx commit,
task set, golden timings and dataset revision it carries. Builds go through the docker CLI (BuildKit: the
host's CA bundle travels as a build secret, which the docker SDK cannot pass); inspecting and running go
through the docker SDK.
"""

from kernelbenchx.errors import KbxError


class ImageError(KbxError):
    """An image cannot be built or run here (no engine, unknown target, no source checkout, failed build)."""
