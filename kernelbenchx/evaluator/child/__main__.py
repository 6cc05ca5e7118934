"""Entry of the candidate process: limits first (nothing of torch or the candidate is loaded yet), then the
harness. Started by process.Child as ``python -m kernelbenchx.evaluator.child FD``."""

import time

STARTED = time.time()  # wall clock, shared with the parent: where the process's boot phases start

from kernelbenchx.evaluator.child import boot  # noqa: E402  (standard library only)

boot.apply_limits()
boot.pin_cpus()
boot.not_pid_one()

from kernelbenchx.evaluator.child.harness import main  # noqa: E402  (after the limits, on purpose)

main(STARTED)
