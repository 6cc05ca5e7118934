# expect: crash process_died
# task: Activation/gelu
import faulthandler


def gelu(input, approximate="none"):
    faulthandler._sigsegv()
