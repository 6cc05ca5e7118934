# expect: runtime_error output_limit
# task: Activation/gelu
import sys


def gelu(input, approximate="none"):
    line = "x" * (1 << 20)
    for _ in range(1 << 12):  # 4 GiB of output, far past the file-size limit
        sys.stdout.write(line)
    return input
