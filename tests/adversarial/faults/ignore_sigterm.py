# expect: timeout wall_clock
# task: Activation/gelu
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def gelu(input, approximate="none"):
    while True:
        pass
