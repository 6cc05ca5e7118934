# expect: runtime_error out_of_memory
# task: Activation/gelu
import torch


def gelu(input, approximate="none"):
    return torch.empty(1 << 40, dtype=torch.uint8)
