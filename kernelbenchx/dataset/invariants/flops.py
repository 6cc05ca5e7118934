"""FLOP counts of the standard dense algorithms (LU, Householder QR, thin SVD) and the batch size they are
multiplied by."""

from __future__ import annotations

import math

import torch

# ---------------------------------------------------------------------------------------------
# FLOP counts of the standard dense algorithms.


def lu_flops(m: int, n: int) -> float:
    k = min(m, n)
    return 2.0 * (m * n * k - (m + n) * k * k / 2 + k ** 3 / 3)


def qr_flops(m: int, n: int, form_q: bool = True) -> float:
    """Householder QR (2·M·N² − 2N³/3 with M ≥ N), plus as much again to form the reduced Q."""
    big, small = max(m, n), min(m, n)
    r = 2.0 * big * small * small - 2.0 * small ** 3 / 3
    return 2 * r if form_q else r


def svd_flops(m: int, n: int) -> float:
    """Golub-Van Loan count for the thin SVD with singular vectors of an M×N matrix (M ≥ N): 14MN² + 8N³."""
    big, small = max(m, n), min(m, n)
    return 14.0 * big * small * small + 8.0 * small ** 3


def batch_count(t: torch.Tensor) -> int:
    return math.prod(t.shape[:-2])
