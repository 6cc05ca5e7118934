# expect: forbidden sandbox_violation
# task: Activation/gelu
import os


def gelu(input, approximate="none"):
    while True:
        os.fork()
