# expect: forbidden sandbox_violation
# task: Activation/gelu
# static: off
# With static checks off, the import blocker in the candidate process still refuses the reference.
from kernelbenchx.dataset.tasks.Activation.gelu import reference  # noqa: F401


def gelu(input, approximate="none"):
    return input
