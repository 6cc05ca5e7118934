# expect: runtime_error out_of_memory
# task: Activation/gelu
# device: gpu
import torch


def gelu(input, approximate="none"):
    return torch.empty(1 << 42, dtype=torch.uint8, device=input.device)
