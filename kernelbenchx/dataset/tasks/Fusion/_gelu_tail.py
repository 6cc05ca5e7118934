"""Case builders that put GELU's input deep in its negative tail, exactly (values exact in TF32, products through
permutation matrices), where the exact and tanh forms differ by tens of percent: shared by the bmm + GELU tasks."""

import torch

from kernelbenchx.dataset.task import permutation, randint


def tail(shape, gen, low, high):
    """Multiples of 1/64 in [low, high] (exact in TF32): products far in GELU's negative tail, where the exact and
    tanh forms differ by 15–40 % while both are tiny, so only the right formula (and no cancellation) passes."""
    return randint(shape, gen, round(low * 64), round(high * 64) + 1).to(torch.float32) / 64


def one_hot_rows(b, n, m, gen):
    """(b, n, m) rows with a single negative entry (a multiple of 1/64 in [−2, −0.5], exact in TF32), zeros
    elsewhere: RMS-normalized over a row of m they sit at −√m, deep in GELU's negative tail, where the exact and
    tanh forms differ by tens of percent and the tanh form's cubic coefficient moves the value by a few percent."""
    x = torch.zeros((b, n, m), device=gen.device)
    col = randint((b, n, 1), gen, 0, m, dtype=torch.int64)
    return x.scatter_(2, col, -randint((b, n, 1), gen, 32, 129).to(torch.float32) / 64)


def permutations(b, n, gen):
    """(b, n, n) permutation matrices: bmm(X, P) permutes X's columns exactly, so the product's values are X's."""
    eye = torch.eye(n, device=gen.device)
    return torch.stack([eye[permutation(n, gen)] for _ in range(b)])
