"""Entry of the candidate process: limits first (nothing of torch or the candidate is loaded yet), then the
harness. Started by process.Child as ``python -m kernelbenchx.evaluator.child FD``."""

import json
import os
import resource


def apply_limits() -> None:
    limits = json.loads(os.environ.get("KBX_LIMITS", "{}"))
    cpu = int(limits.get("cpu_s", 600))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    for name, key in (("RLIMIT_FSIZE", "file_bytes"), ("RLIMIT_NOFILE", "open_files"),
                      ("RLIMIT_NPROC", "processes"), ("RLIMIT_AS", "address_space")):
        if limits.get(key):
            resource.setrlimit(getattr(resource, name), (int(limits[key]), int(limits[key])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


apply_limits()

from kernelbenchx.evaluator.child.harness import main  # noqa: E402  (after the limits, on purpose)

main()
