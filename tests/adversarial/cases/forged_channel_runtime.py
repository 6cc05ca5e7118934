# expect: forbidden sandbox_violation
# task: Activation/gelu
# static: off
# Static checks off: writing through /proc to the harness's descriptors is refused by the audit hook.
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def gelu(input, approximate="none"):
    for fd in range(3, 16):
        with open(f"/proc/self/fd/{fd}", "wb") as f:
            f.write(b"forged")
    _touch[(1,)](input)
    return input.clone()
