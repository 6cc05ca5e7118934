# expect: forbidden deferred_work
# task: Random/rand
# device: gpu
# static: off
# Static checks off (gc and the harness's objects are outside the allowed surface): the output digest catches it.
# A custom-check task's timed output is held in the candidate process and fetched after the timing lane is given
# back. Every later call of this candidate (kbx's own rand kernel) finds the outputs held so far and rewrites one
# value in place through numpy (no PyTorch operator for the observer to see), as a kernel that was fast and wrong
# when timed would repair them before their judgement. The digest reported when each was timed no longer matches.
import gc

import torch
import triton
import triton.language as tl


@triton.jit
def _rand_kernel(seed_ptr, out_ptr, n, KIND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr)
    if KIND == 0:  # float32
        u = tl.rand(seed, offs)
    elif KIND == 1:  # float16: 11 random bits, exactly representable and < 1
        r = tl.randint(seed, offs).to(tl.uint32, bitcast=True)
        u = (r >> 21).to(tl.float32) * (1.0 / 2048.0)
    else:  # float64: 53 random bits from two 32-bit draws
        r0, r1, _, _ = tl.randint4x(seed, offs)
        hi = (r0.to(tl.uint32, bitcast=True) >> 5).to(tl.float64)
        lo = (r1.to(tl.uint32, bitcast=True) >> 6).to(tl.float64)
        u = (hi * 67108864.0 + lo) * (1.0 / 9007199254740992.0)
    tl.store(out_ptr + offs, u.to(out_ptr.dtype.element_ty), mask=mask)


def _repair_held():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Harness":
            for held in getattr(obj, "held_outputs", {}).values():
                if isinstance(held, torch.Tensor) and held.numel():
                    held.numpy().reshape(-1)[0] = 0.5


def rand(*size, seed, dtype=None):
    _repair_held()
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    dtype = torch.float32 if dtype is None else dtype
    out = torch.empty(size, dtype=dtype, device=seed.device)
    n = out.numel()
    if n:
        kind = {torch.float32: 0, torch.float16: 1, torch.float64: 2}[dtype]
        BLOCK = 1024
        _rand_kernel[(triton.cdiv(n, BLOCK),)](seed, out, n, KIND=kind, BLOCK=BLOCK)
    return out
