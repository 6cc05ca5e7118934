"""Fusion/fused_bmm_rmsnorm_gelu_dropout: batched matmul, RMS norm over the trailing dims, GELU, seeded dropout."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision, stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.Fusion._gelu_tail import one_hot_rows, permutations


def normalized(z: torch.Tensor, normalized_shape, eps: float, approximate: str) -> torch.Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return gelu(F.rms_norm(z, shape, eps=eps), approximate=approximate)


def reference(input1: torch.Tensor, input2: torch.Tensor, normalized_shape, dropout_p: float = 0.1,
              eps: float = 1e-5, training: bool = True, approximate: str = "none", seed: int = 0) -> torch.Tensor:
    g = normalized(torch.bmm(input1, input2), normalized_shape, eps, approximate)
    return stochastic.seeded_dropout(g, dropout_p, training, seed)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["dropout_p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.bmm(a["input1"].detach().double(), a["input2"].detach().double())
    kept = normalized(z, a["normalized_shape"], a["eps"], a["approximate"]) / (1.0 - a["dropout_p"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["dropout_p"], contract.tolerance, call=call)


def positive(shape, gen, mode="standard"):
    """|N(0, 1)| entries: the products are positive, so their normalized GELU is far from the dropped 0 and the
    whole mask is observable."""
    return sample(shape, gen, mode).abs()


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
    yield "eval_tanh_two_dims", Call(sample((2, 9, 12), gen), sample((2, 12, 10), gen), [9, 10], 0.5, 1e-5, False,
                                     "tanh")
    # RNG structure: batch elements × rows × columns over many output tiles, every drop observable.
    yield "rng_structure", Call(positive((8, 32, 32), gen), positive((8, 32, 128), gen), 128, 0.5,
                                seed=0x2545F4914F6CDD1D)
    x, y = positive((2, 16, 16), gen), positive((2, 16, 64), gen)
    yield from stochastic.family("seed_family", lambda s: Call(x, y, 64, 0.5, seed=s), 0x5DEECE66D, gen)
    # Normalized values at −√12 ≈ −3.46, in GELU's tail (eval: compared elementwise; training: kept or dropped).
    yield "gelu_tail_eval_tanh", Call(one_hot_rows(2, 8, 12, gen), permutations(2, 12, gen), 12, 0.5, 1e-5, False,
                                      "tanh")
    yield "gelu_tail_p_0.3", Call(one_hot_rows(2, 8, 12, gen), permutations(2, 12, gen), 12, 0.3, seed=6)
    # Products far from unit scale: 1/RMS is about 1e-9 here and 1e5 below (with a small eps), outside float16's
    # range; the normalized values are the same.
    yield "large_magnitude", Call(sample((2, 8, 16), gen) * 1e4, sample((2, 16, 24), gen) * 1e4, 24, 0.5, seed=7)
    yield "small_magnitude_eps_1e-12", Call(sample((2, 8, 16), gen) * 1e-3, sample((2, 16, 24), gen) * 1e-3,
                                            [8, 24], 0.5, 1e-12, seed=8)


def random_cases(gen, mode):
    seed, flip = stochastic.draw_seed, stochastic.flag
    yield "b4_64x128x96", Call(sample((4, 64, 128), gen, mode), sample((4, 128, 96), gen, mode), 96, seed=seed(gen))
    yield "b2_100x200x150_tanh", Call(sample((2, 100, 200), gen, mode), sample((2, 200, 150), gen, mode), 150, 0.5,
                                      approximate="tanh", seed=seed(gen))
    yield "b8_31x64x129_two_dims", Call(sample((8, 31, 64), gen, mode), sample((8, 64, 129), gen, mode), [31, 129],
                                        0.3, seed=seed(gen))
    yield "drawn_flags", Call(sample((3, 33, 40), gen, mode), sample((3, 40, 47), gen, mode),
                              ([33, 47], 47)[flip(gen)], stochastic.draw_p(gen), 1e-5, flip(gen),
                              ("none", "tanh")[flip(gen)], seed=seed(gen))
    yield "rng_structure", Call(positive((8, 24, 32), gen, mode), positive((8, 32, 160), gen, mode), 160,
                                stochastic.draw_p(gen, 0.3, 0.7), 1e-5, True, ("none", "tanh")[flip(gen)],
                                seed=seed(gen))
    if mode == "standard":
        x, y = positive((2, 16, 16), gen, mode), positive((2, 16, 64), gen, mode)
        yield from stochastic.family("seed_family", lambda s: Call(x, y, [16, 64], 0.5, seed=s), seed(gen), gen)


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
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True, deterministic=True, precision=precision.TF32_PRECISION,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is GELU(RMSNorm(Z))/(1−p) with Z "
                            "recomputed in float64. Tolerance is RMS-scaled for TF32 products; the relative RMS "
                            "bound applies to the distance from the nearer of the dropped and kept values."),
    flops=flops,
    unit="tf32",
    check=check,
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.SATISFIABLE, "the mask comes from torch's global generator and the output must equal "
                  "torch's own dropout bit for bit", "a `seed` argument drives the mask; the output is judged by "
                  "the law of dropout (kept or dropped values, tests of independent Bernoulli(p) drops, "
                  "independence across seeds)", "no kernel can reproduce torch's random stream", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (on torch's own mask)",
                  "1e-2·RMS + 1e-2·|ref| elementwise and relative RMS error ≤ 1e-3 against a float64 recomputation",
                  "TF32 tensor-core products are allowed; the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.PERF, "18 sizes (32, n, n) for n = 256 … 2432", "n = 256, 1024 and 2432",
                  "a subset of upstream's sizes from small to the largest"),
    ),
)
