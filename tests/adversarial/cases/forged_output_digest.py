# expect: forbidden monkeypatch
# task: Random/rand
# static: off
# Static checks off (hashlib is outside the allowed surface): the symbol snapshot sees the replaced hash.
# A custom-check task's timed output is copied to the host and digested before any more candidate code runs; the
# parent re-digests what it fetches later, so an output repaired in memory no longer matches (repair_held_output).
# This candidate repairs it inside the digest instead: its `hashlib.sha256` rewrites each buffer it is given
# before hashing it, so the held copy and its digest agree on bytes the timed kernel never produced. Here the
# "repair" rewrites one value; a kernel fast and wrong when timed would rewrite them all.
import hashlib

import torch
import triton
import triton.language as tl

_real_sha256 = hashlib.sha256


class _Repairing:
    def __init__(self, *args, **kwargs):
        self.inner = _real_sha256(*args, **kwargs)

    def update(self, data):
        view = memoryview(data)
        if not view.readonly and view.nbytes >= 4:
            view.cast("B")[:4] = bytes((0, 0, 0, 63))  # float32 0.5
        self.inner.update(data)

    def hexdigest(self):
        return self.inner.hexdigest()


hashlib.sha256 = _Repairing


@triton.jit
def _rand_kernel(seed_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    u = tl.rand(tl.load(seed_ptr), offs)
    tl.store(out_ptr + offs, u.to(out_ptr.dtype.element_ty), mask=offs < n)


def rand(*size, seed, dtype=None):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = torch.empty(size, dtype=torch.float32 if dtype is None else dtype, device=seed.device)
    if out.numel():
        _rand_kernel[(triton.cdiv(out.numel(), 1024),)](seed, out, out.numel(), BLOCK=1024)
    return out
