"""Fusion/fused_bmm_rmsnorm_gelu_dropout: batched matmul, RMS norm over the trailing dims, GELU, seeded dropout."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randint, sample


def normalized(z: torch.Tensor, normalized_shape, eps: float, approximate: str) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return F.gelu(F.rms_norm(z, shape, eps=eps), approximate=approximate)


def reference(input1: torch.Tensor, input2: torch.Tensor, normalized_shape, dropout_p: float = 0.1,
              eps: float = 1e-5, training: bool = True, approximate: str = "none", seed: int = 0) -> torch.Tensor:
    g = normalized(torch.bmm(input1, input2), normalized_shape, eps, approximate)
    return stochastic.seeded_dropout(g, dropout_p, training, seed)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["dropout_p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.bmm(a["input1"].detach().cpu().double(), a["input2"].detach().cpu().double())
    kept = normalized(z, a["normalized_shape"], a["eps"], a["approximate"]) / (1.0 - a["dropout_p"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["dropout_p"], contract.tolerance)


def seed(gen):
    return int(randint((), gen, 0, 2**31))


def fixed_cases(gen):
    yield "catalogue_example", Call(sample((2, 3, 4), gen), sample((2, 4, 5), gen), 5, seed=1)
    yield "eval_mode", Call(sample((2, 16, 24), gen), sample((2, 24, 40), gen), 40, 0.5, training=False)
    x = sample((2, 12, 32), gen)
    x[0, 3] = 0.0  # an all-zero row normalizes to 0
    yield "zero_row_p_half", Call(x, sample((2, 32, 64), gen), [64], 0.5, seed=2)
    yield "last_two_dims_tanh", Call(sample((3, 9, 20), gen), sample((3, 20, 11), gen), [9, 11], 0.3,
                                     approximate="tanh", seed=3)
    yield "p_zero_identity_eps_0.1", Call(sample((2, 5, 7), gen), sample((2, 7, 6), gen), 6, 0.0, 0.1)
    yield "p_one_zeros", Call(sample((1, 8, 8), gen), sample((1, 8, 8), gen), 8, 1.0)
    yield "odd_sizes", Call(sample((3, 33, 65), gen), sample((3, 65, 17), gen), 17, 0.5, seed=4)


def random_cases(gen, mode):
    yield "b4_64x128x96", Call(sample((4, 64, 128), gen, mode), sample((4, 128, 96), gen, mode), 96, seed=seed(gen))
    yield "b2_100x200x150_tanh", Call(sample((2, 100, 200), gen, mode), sample((2, 200, 150), gen, mode), 150, 0.5,
                                      approximate="tanh", seed=seed(gen))
    yield "b8_31x64x129_two_dims", Call(sample((8, 31, 64), gen, mode), sample((8, 64, 129), gen, mode), [31, 129],
                                        0.3, seed=seed(gen))


def perf_cases(gen):
    for n in (256, 1024, 2432):
        yield f"b32_{n}", Call(sample((32, n, n), gen), sample((32, n, n), gen), n, seed=77)


def flops(call, out):
    b, n, m = call.args[0].shape
    return 2.0 * b * n * m * call.args[1].shape[-1] + 14.0 * out.numel()


TASK = Task(
    id="Fusion/fused_bmm_rmsnorm_gelu_dropout",
    entry="fused_bmm_rmsnorm_gelu_dropout",
    signature="fused_bmm_rmsnorm_gelu_dropout(input1: Tensor, input2: Tensor, normalized_shape: int | list[int], "
              "dropout_p: float = 0.1, eps: float = 1e-5, training: bool = True, approximate: str = 'none', "
              "seed: int = 0) -> Tensor",
    description="Computes Z = bmm(input1, input2) for float32 input1 (B, N, M) and input2 (B, M, P) (finite), "
                "RMS-normalizes it over the trailing dims given by normalized_shape (P, or [N, P]): "
                "Z / √(mean(Z²) + eps) with no weight, applies GELU (approximate='none': x·Φ(x); 'tanh': the "
                "tanh approximation), then dropout: when training and 0 < dropout_p < 1 each element is "
                "independently zeroed with probability dropout_p and otherwise scaled by 1/(1−dropout_p); with "
                "training=False or dropout_p = 0 nothing changes; with dropout_p = 1 everything is multiplied by "
                "0. Returns a new float32 (B, N, P) tensor. `seed` (an int) drives the random mask; it replaces "
                "torch's global generator.",
    math=r"Z = XY,\ G = \mathrm{GELU}\!\left(Z/\sqrt{\mathrm{mean}(Z^2) + \epsilon}\right),\ "
         r"\mathrm{out} = \frac{m \odot G}{1-p},\ m \sim \mathrm{Bernoulli}(1-p)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input1, input2 float32; output float32 (B, N, P)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is GELU(RMSNorm(Z))/(1−p) with Z "
                            "recomputed in float64. Tolerance is RMS-scaled for TF32 products."),
    flops=flops,
    unit="tf32",
    check=check,
)
