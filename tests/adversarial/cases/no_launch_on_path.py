# expect: no_triton_kernel kernel_not_launched
# task: Activation/relu
# A decoy kernel that is defined but never launched; the entry returns a copy.
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr):
    tl.load(x_ptr)


def relu(input):
    return input.clone()
