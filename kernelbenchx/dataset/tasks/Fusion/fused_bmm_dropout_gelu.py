"""Fusion/fused_bmm_dropout_gelu: batched matmul, seeded dropout on the product, then GELU."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randint, sample

HALF = torch.float16


def reference(input1: torch.Tensor, input2: torch.Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False, approximate: str = "none", seed: int = 0) -> torch.Tensor:
    d = stochastic.seeded_dropout(torch.bmm(input1, input2), p, training, seed, inplace)
    return F.gelu(d, approximate=approximate)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.bmm(a["input1"].detach().cpu().double(), a["input2"].detach().cpu().double())
    kept = F.gelu(z / (1.0 - a["p"]), approximate=a["approximate"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["p"], contract.tolerance)


def seed(gen):
    return int(randint((), gen, 0, 2**31))


def fixed_cases(gen):
    yield "catalogue_shapes_p_0.2", Call(sample((2, 3, 4), gen), sample((2, 4, 5), gen), 0.2, seed=1)
    yield "eval_mode", Call(sample((2, 16, 24), gen), sample((2, 24, 8), gen), 0.5, False)
    yield "p_zero_identity_tanh", Call(sample((3, 9, 7), gen), sample((3, 7, 11), gen), 0.0, approximate="tanh")
    yield "p_one_zeros", Call(sample((1, 8, 8), gen), sample((1, 8, 8), gen), 1.0)
    yield "float16", Call(sample((4, 32, 64), gen, dtype=HALF), sample((4, 64, 48), gen, dtype=HALF), seed=2)
    yield "inplace_no_visible_effect", Call(sample((2, 40, 20), gen), sample((2, 20, 30), gen), 0.3, True, True, seed=3)
    yield "odd_sizes_tanh", Call(sample((3, 33, 65), gen), sample((3, 65, 17), gen), 0.5, approximate="tanh", seed=4)


def random_cases(gen, mode):
    yield "fp16_b4_64x128x96", Call(sample((4, 64, 128), gen, mode, dtype=HALF),
                                    sample((4, 128, 96), gen, mode, dtype=HALF), 0.5, seed=seed(gen))
    yield "fp32_b2_100x200x150_tanh", Call(sample((2, 100, 200), gen, mode), sample((2, 200, 150), gen, mode), 0.1,
                                           approximate="tanh", seed=seed(gen))
    yield "fp16_b8_31x64x129_p_0.8", Call(sample((8, 31, 64), gen, mode, dtype=HALF),
                                          sample((8, 64, 129), gen, mode, dtype=HALF), 0.8, seed=seed(gen))


def perf_cases(gen):
    for n in (256, 1024, 2432):
        x, y = sample((32, n, n), gen, dtype=HALF), sample((32, n, n), gen, dtype=HALF)
        yield f"fp16_b32_{n}", Call(x, y, 0.5, seed=77)


def flops(call, out):
    b, n, m = call.args[0].shape
    return 2.0 * b * n * m * call.args[1].shape[-1] + 10.0 * out.numel()


TASK = Task(
    id="Fusion/fused_bmm_dropout_gelu",
    entry="fused_bmm_dropout_gelu",
    signature="fused_bmm_dropout_gelu(input1: Tensor, input2: Tensor, p: float = 0.5, training: bool = True, "
              "inplace: bool = False, approximate: str = 'none', seed: int = 0) -> Tensor",
    description="Computes Z = bmm(input1, input2) for input1 (B, N, M) and input2 (B, M, P) (both float16 or both "
                "float32, finite), then dropout: when training and 0 < p < 1 each element of Z is independently "
                "zeroed with probability p and otherwise scaled by 1/(1−p); with training=False or p = 0 it is "
                "Z; with p = 1 it is Z·0. Finally GELU elementwise (approximate='none': x·Φ(x) with the normal "
                "CDF; 'tanh': 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))). Returns a new (B, N, P) tensor in the "
                "inputs' dtype. `inplace` only concerns the intermediate Z, so it has no visible effect. `seed` "
                "(an int) drives the random mask; it replaces torch's global generator.",
    math=r"Z = XY,\quad O_{bij} = \mathrm{GELU}\!\left(\frac{m_{bij} Z_{bij}}{1-p}\right),\ "
         r"m_{bij} \sim \mathrm{Bernoulli}(1-p)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input1, input2 float16 or float32 (same dtype); output the same dtype",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is GELU(Z/(1−p)) with Z recomputed in "
                            "float64; a dropped element is GELU(0) = 0. Tolerance is RMS-scaled for TF32 / fp16 "
                            "tensor-core products."),
    flops=flops,
    unit="fp16",
    check=check,
)
