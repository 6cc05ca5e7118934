# expect: crash process_died
# task: Activation/gelu
import os


def gelu(input, approximate="none"):
    os._exit(0)
