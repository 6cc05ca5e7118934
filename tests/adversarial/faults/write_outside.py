# expect: forbidden sandbox_violation
# task: Activation/gelu
def gelu(input, approximate="none"):
    with open("/tmp/kbx-escaped.txt", "w") as f:
        f.write("escaped")
    return input
