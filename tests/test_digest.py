"""The GPU-hashable Merkle leaves (kernelbenchx/evaluator/measure/digest.py) are plain SHA-256 of each chunk: the
Triton kernel, run here by the interpreter on small chunks, agrees with hashlib byte for byte."""

import os

import pytest
import torch

from kernelbenchx.evaluator.measure import digest

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1" and not torch.cuda.is_available(),
                                reason="Triton kernels need a GPU or TRITON_INTERPRET=1")


@pytest.mark.parametrize("chunk, size", [(64, 64 * 3 + 5), (128, 128 * 70)])
def test_each_leaf_is_the_sha256_of_its_chunk(chunk: int, size: int) -> None:
    """Every byte value and every position matter: random bytes, a tail shorter than a chunk left to the host,
    and more chunks than one program's lanes."""
    data = torch.randint(0, 256, (size,), dtype=torch.uint8, generator=torch.Generator().manual_seed(size))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    got = digest.leaves_gpu(data.to(device), chunk)
    assert len(got) == size // chunk * 32
    assert got == digest.leaves_cpu(memoryview(data.numpy()), chunk)
    flipped = data.clone()
    flipped[chunk + 1] ^= 1
    assert digest.leaves_gpu(flipped.to(device), chunk)[32:64] != got[32:64]


def test_a_chunk_must_be_whole_sha256_blocks() -> None:
    with pytest.raises(ValueError):
        digest.leaves_gpu(torch.zeros(100, dtype=torch.uint8), 100)
    assert digest.leaves_gpu(torch.zeros(10, dtype=torch.uint8), 64) == b"" == digest.leaves_cpu(memoryview(b"x"), 64)
