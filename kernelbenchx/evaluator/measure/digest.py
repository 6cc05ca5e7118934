"""A SHA-256 Merkle digest of a tensor's bytes whose leaves can be hashed on the GPU.

A held output is digested in the candidate process while its GPU's timing lane is held (perf_case.Measurement.hold).
SHA-256 on this host's CPU costs 0.85 s per GB (runs 37-39: ~8 s of a half set's lane), and the candidate's
seccomp filter forbids the threads that would spread it. The leaves of this digest are plain SHA-256 of fixed
CHUNK-byte pieces, so the GPU can hash all of them at once (one chunk per lane, `leaves_gpu`) and any host can
recompute them with hashlib (`leaves_cpu`): the parent, which re-digests what it is sent, needs no GPU.

    root = SHA-256( for each tensor: "{dtype}{shape};" then SHA-256(chunk) of every whole chunk, then the tail )

Not yet used by the hold: it has run under TRITON_INTERPRET=1 only (tests/test_digest.py). Check `leaves_gpu`
against `leaves_cpu` on a GPU before the hold uses it.
"""

from __future__ import annotations

import hashlib

import torch
import triton
import triton.language as tl

CHUNK = 4096  # bytes per leaf: a multiple of 64 (SHA-256's block) and of 4 (the kernel reads 32-bit words)
LANES = 64  # chunks per program

_K = (0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
      0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
      0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
      0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
      0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
      0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
      0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
      0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2)
_H0 = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)


@triton.jit
def _rotr(x, n: tl.constexpr):
    return (x >> n) | (x << (32 - n))


@triton.jit
def _word(w, cols, j):
    """Column j of the [LANES, 16] message window."""
    return tl.sum(tl.where(cols[None, :] == j, w, 0).to(tl.uint32), axis=1).to(tl.uint32)


@triton.jit
def _sha256_chunks(data_ptr, k_ptr, h0_ptr, out_ptr, n_chunks, WORDS: tl.constexpr, LANES: tl.constexpr):
    """out[c, 0:8] = SHA-256 of chunk c (WORDS little-endian 32-bit words of data), one chunk per lane."""
    lane = tl.program_id(0) * LANES + tl.arange(0, LANES)
    live = lane < n_chunks
    cols = tl.arange(0, 16)
    row = lane.to(tl.int64)[:, None] * WORDS + cols[None, :]
    # the padding block of a CHUNK-byte message: 0x80, zeros, the length in bits
    zeros16 = tl.zeros([16], tl.uint32)
    pad = tl.where(cols == 0, zeros16 + (1 << 31), tl.where(cols == 15, zeros16 + WORDS * 32, zeros16))
    zero = tl.zeros([LANES], tl.uint32)
    h0 = zero + tl.load(h0_ptr + 0).to(tl.uint32, bitcast=True)
    h1 = zero + tl.load(h0_ptr + 1).to(tl.uint32, bitcast=True)
    h2 = zero + tl.load(h0_ptr + 2).to(tl.uint32, bitcast=True)
    h3 = zero + tl.load(h0_ptr + 3).to(tl.uint32, bitcast=True)
    h4 = zero + tl.load(h0_ptr + 4).to(tl.uint32, bitcast=True)
    h5 = zero + tl.load(h0_ptr + 5).to(tl.uint32, bitcast=True)
    h6 = zero + tl.load(h0_ptr + 6).to(tl.uint32, bitcast=True)
    h7 = zero + tl.load(h0_ptr + 7).to(tl.uint32, bitcast=True)
    for blk in range(WORDS // 16 + 1):
        data = blk < WORDS // 16
        raw = tl.load(data_ptr + row + blk * 16, mask=live[:, None] & data, other=0).to(tl.uint32, bitcast=True)
        swapped = (raw >> 24) | ((raw >> 8) & 0xFF00) | ((raw << 8) & 0xFF0000) | (raw << 24)  # SHA reads big-endian
        w = tl.where(data, swapped, pad[None, :])
        a, b, c, d, e, f, g, h = h0, h1, h2, h3, h4, h5, h6, h7
        for t in range(64):
            s0 = _word(w, cols, (t - 15) & 15)
            s1 = _word(w, cols, (t - 2) & 15)
            grown = (_rotr(s1, 17) ^ _rotr(s1, 19) ^ (s1 >> 10)) + _word(w, cols, (t - 7) & 15) \
                + (_rotr(s0, 7) ^ _rotr(s0, 18) ^ (s0 >> 3)) + _word(w, cols, t & 15)
            wt = tl.where(t < 16, _word(w, cols, t & 15), grown)
            w = tl.where((cols[None, :] == (t & 15)) & (t >= 16), wt[:, None], w)
            k = tl.load(k_ptr + t).to(tl.uint32, bitcast=True)
            t1 = h + (_rotr(e, 6) ^ _rotr(e, 11) ^ _rotr(e, 25)) + (g ^ (e & (f ^ g))) + k + wt
            t2 = (_rotr(a, 2) ^ _rotr(a, 13) ^ _rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
            h, g, f, e, d, c, b, a = g, f, e, d + t1, c, b, a, t1 + t2
        h0, h1, h2, h3, h4, h5, h6, h7 = h0 + a, h1 + b, h2 + c, h3 + d, h4 + e, h5 + f, h6 + g, h7 + h
    base = out_ptr + lane.to(tl.int64) * 8
    tl.store(base + 0, h0.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 1, h1.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 2, h2.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 3, h3.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 4, h4.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 5, h5.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 6, h6.to(tl.int32, bitcast=True), mask=live)
    tl.store(base + 7, h7.to(tl.int32, bitcast=True), mask=live)


def _table(values: tuple[int, ...], device: torch.device) -> torch.Tensor:
    return torch.tensor([v - (1 << 32) if v >= 1 << 31 else v for v in values], dtype=torch.int32, device=device)


def leaves_gpu(data: torch.Tensor, chunk: int = CHUNK) -> bytes:
    """SHA-256 of each whole `chunk` of `data` (a contiguous uint8 tensor on the device), concatenated."""
    if chunk % 64:
        raise ValueError(f"chunk must be a multiple of 64 bytes, got {chunk}")
    n = data.numel() // chunk
    if n == 0:
        return b""
    words = data[: n * chunk].view(torch.int32)
    out = torch.empty((n, 8), dtype=torch.int32, device=data.device)
    _sha256_chunks[(triton.cdiv(n, LANES),)](words, _table(_K, data.device), _table(_H0, data.device), out, n,
                                             WORDS=chunk // 4, LANES=LANES)
    return out.cpu().numpy().astype(">u4").tobytes()


def leaves_cpu(data: memoryview, chunk: int = CHUNK) -> bytes:
    """The same leaves from host memory, with hashlib."""
    return b"".join(hashlib.sha256(data[i: i + chunk]).digest() for i in range(0, len(data) // chunk * chunk, chunk))
