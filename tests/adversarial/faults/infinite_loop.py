# expect: timeout wall_clock
# task: Activation/gelu
def gelu(input, approximate="none"):
    while True:
        pass
