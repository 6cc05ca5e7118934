"""Fusion/fused_bmm_dropout_gelu: batched matmul, seeded dropout on the product, then GELU."""

import torch

from kernelbenchx.dataset import precision, stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.refs import gelu
from kernelbenchx.dataset.task import Call, Task, sample
from kernelbenchx.dataset.tasks.Fusion._gelu_tail import permutations, tail

HALF = torch.float16


def reference(input1: torch.Tensor, input2: torch.Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False, approximate: str = "none", seed: int = 0) -> torch.Tensor:
    d = stochastic.seeded_dropout(torch.bmm(input1, input2), p, training, seed, inplace)
    return gelu(d, approximate=approximate)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.bmm(a["input1"].detach().double(), a["input2"].detach().double())
    kept = gelu(z / (1.0 - a["p"]), approximate=a["approximate"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["p"], contract.tolerance, call=call)


def positive(shape, gen, mode="standard", dtype=torch.float32):
    """|N(0, 1)| entries: products of positive matrices are positive, so every kept value GELU(Z/(1−p)) is far
    from the dropped GELU(0) = 0 and the whole mask is observable."""
    return sample(shape, gen, mode).abs().to(dtype)


def fixed_cases(gen):
    yield "catalogue_shapes_p_0.2", Call(sample((2, 3, 4), gen), sample((2, 4, 5), gen), 0.2, seed=1)
    yield "eval_mode", Call(sample((2, 16, 24), gen), sample((2, 24, 8), gen), 0.5, False)
    yield "p_zero_identity_tanh", Call(sample((3, 9, 7), gen), sample((3, 7, 11), gen), 0.0, approximate="tanh")
    yield "p_one_zeros", Call(sample((1, 8, 8), gen), sample((1, 8, 8), gen), 1.0)
    yield "float16", Call(sample((4, 32, 64), gen, dtype=HALF), sample((4, 64, 48), gen, dtype=HALF), seed=2)
    yield "inplace_no_visible_effect", Call(sample((2, 40, 20), gen), sample((2, 20, 30), gen), 0.3, True, True, seed=3)
    yield "odd_sizes_tanh", Call(sample((3, 33, 65), gen), sample((3, 65, 17), gen), 0.5, approximate="tanh", seed=4)
    yield "inplace_tanh", Call(sample((2, 17, 9), gen), sample((2, 9, 31), gen), 0.4, True, True, "tanh", seed=5)
    yield "eval_inplace", Call(sample((2, 7, 9), gen), sample((2, 9, 5), gen), 0.5, False, True)
    yield "eval_tanh", Call(sample((2, 7, 9), gen), sample((2, 9, 5), gen), 0.5, False, False, "tanh")
    yield "eval_inplace_tanh", Call(sample((2, 7, 9), gen), sample((2, 9, 5), gen), 0.5, False, True, "tanh")
    # RNG structure: batch elements × rows × columns over many output tiles, every drop observable.
    yield "rng_structure", Call(positive((8, 32, 32), gen), positive((8, 32, 128), gen), 0.5,
                                seed=0x2545F4914F6CDD1D)
    x, y = positive((2, 16, 16), gen), positive((2, 16, 64), gen)
    yield from stochastic.family("seed_family", lambda s: Call(x, y, 0.5, seed=s), 0x5DEECE66D, gen)
    # GELU's input deep in its negative tail, in [−3.6, −3.2] (eval: compared elementwise; training: kept values
    # GELU(Z/(1−p)) with Z/0.7 there, or dropped).
    yield "gelu_tail_eval_tanh", Call(tail((2, 8, 16), gen, -3.6, -3.2), permutations(2, 16, gen), 0.5, False,
                                      False, "tanh")
    yield "gelu_tail_p_0.3", Call(tail((2, 8, 16), gen, -2.5, -2.25), permutations(2, 16, gen), 0.3, seed=6)


def random_cases(gen, mode):
    seed = stochastic.draw_seed
    yield "fp16_b4_64x128x96", Call(sample((4, 64, 128), gen, mode, dtype=HALF),
                                    sample((4, 128, 96), gen, mode, dtype=HALF), 0.5, seed=seed(gen))
    yield "fp32_b2_100x200x150_tanh", Call(sample((2, 100, 200), gen, mode), sample((2, 200, 150), gen, mode), 0.1,
                                           approximate="tanh", seed=seed(gen))
    yield "fp16_b8_31x64x129_p_0.8", Call(sample((8, 31, 64), gen, mode, dtype=HALF),
                                          sample((8, 64, 129), gen, mode, dtype=HALF), 0.8, seed=seed(gen))
    flip = stochastic.flag
    yield "drawn_flags", Call(sample((3, 33, 40), gen, mode), sample((3, 40, 47), gen, mode), stochastic.draw_p(gen),
                              flip(gen), flip(gen), ("none", "tanh")[flip(gen)], seed=seed(gen))
    dtype = (torch.float32, HALF)[flip(gen)]
    yield "rng_structure", Call(positive((8, 24, 32), gen, mode, dtype), positive((8, 32, 160), gen, mode, dtype),
                                stochastic.draw_p(gen, 0.3, 0.7), True, flip(gen), ("none", "tanh")[flip(gen)],
                                seed=seed(gen))
    if mode == "standard":
        x, y = positive((2, 16, 16), gen, mode), positive((2, 16, 64), gen, mode)
        yield from stochastic.family("seed_family", lambda s: Call(x, y, 0.5, seed=s), seed(gen), gen)


def perf_cases(gen):
    for n in (256, 1024, 2432):
        yield f"b32_{n}", Call(sample((32, n, n), gen), sample((32, n, n), gen), 0.5, seed=77)


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
                "(an int, up to 63 bits) drives the random mask; it replaces torch's global generator.",
    math=r"Z = XY,\quad O_{bij} = \mathrm{GELU}\!\left(\frac{m_{bij} Z_{bij}}{1-p}\right),\ "
         r"m_{bij} \sim \mathrm{Bernoulli}(1-p)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input1, input2 float16 or float32 (same dtype); output the same dtype",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True, deterministic=True, precision=precision.TF32_PRECISION,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is GELU(Z/(1−p)) with Z recomputed in "
                            "float64; a dropped element is GELU(0) = 0. Tolerance is RMS-scaled for TF32 / fp16 "
                            "tensor-core products; the relative RMS bound applies to the distance from the nearer "
                            "of the dropped and kept values."),
    flops=flops,
    unit="tf32",
    check=check,
    choices={"approximate": ("none", "tanh")},
    deviations=(
        Deviation(Kind.SATISFIABLE, "the mask comes from torch's global generator and the output must equal "
                  "torch's own dropout bit for bit", "a `seed` argument drives the mask; the output is judged by "
                  "the law of dropout (kept or dropped values, tests of independent Bernoulli(p) drops, "
                  "independence across seeds)", "no kernel can reproduce torch's random stream", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 5e-3 (float16 cases)",
                  "1e-2·RMS + 1e-2·|ref| elementwise and relative RMS error ≤ 1e-3 against a float64 recomputation; "
                  "float32 cases too", "TF32 and fp16 tensor-core products accumulate rounding with the reduction "
                  "length; the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.COVERAGE, "float16 cases only", "float16 and float32 cases",
                  "the signature accepts both; perf is timed in float32 as upstream's perf script does"),
        Deviation(Kind.PERF, "18 sizes (32, n, n) for n = 256 … 2432, float32",
                  "n = 256, 1024 and 2432, float32", "a subset of upstream's sizes from small to the largest"),
    ),
)
