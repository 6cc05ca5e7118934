# expect-cpu: runtime_error out_of_memory
# expect: forbidden bad_output
# task: Activation/gelu
# On GPU machines (no address-space limit, which CUDA needs) the lazy allocation succeeds and the
# harness refuses to copy a 1 TiB output.
import torch


def gelu(input, approximate="none"):
    return torch.empty(1 << 40, dtype=torch.uint8)
