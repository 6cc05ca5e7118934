# expect-cpu: runtime_error exception
# expect: forbidden bad_output
# task: Activation/gelu
# On the CPU the allocator's refusal is a plain RuntimeError from torch (no type tells it apart).
# On GPU machines (no address-space limit, which CUDA needs) the lazy allocation succeeds and the
# harness refuses to copy a 1 TiB output.
import torch


def gelu(input, approximate="none"):
    return torch.empty(1 << 40, dtype=torch.uint8)
