"""Fusion/fused_mv_logsoftmax_dropout: matrix-vector product, log-softmax over it, then seeded dropout."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform

TOLERANCE = Tolerance(rtol=1e-5, atol=1e-5, scale="rms")


def reference(input: torch.Tensor, vec: torch.Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False, dim: int = 0, seed: int = 0) -> torch.Tensor:
    s = F.log_softmax(torch.mv(input, vec), dim=dim)
    return stochastic.seeded_dropout(s, p, training, seed, inplace)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.mv(a["input"].detach().double(), a["vec"].detach().double())
    kept = F.log_softmax(z, dim=a["dim"]) / (1.0 - a["p"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["p"], contract.tolerance, call=call)


def fixed_cases(gen):
    example = torch.arange(1.0, 16.0).reshape(5, 3)
    yield "catalogue_example_eval", Call(example, torch.tensor([0.1, 0.2, 0.3]), 0.2, False)
    yield "p_0.2", Call(sample((500, 33), gen), sample((33,), gen), 0.2, seed=3)
    yield "defaults_dim_minus_1", Call(sample((1000, 64), gen), sample((64,), gen), dim=-1, seed=4)
    yield "p_zero_identity", Call(sample((77, 9), gen), sample((9,), gen), 0.0)
    yield "p_one_zeros", Call(sample((77, 9), gen), sample((9,), gen), 1.0)
    yield "inplace_no_visible_effect", Call(sample((300, 20), gen), sample((20,), gen), 0.5, True, True, seed=5)
    yield "single_row", Call(sample((1, 40), gen), sample((40,), gen), 0.5, seed=6)
    yield "eval_inplace_dim_minus_1", Call(sample((50, 8), gen), sample((8,), gen), 0.5, False, True, -1)
    yield "inplace_dim_minus_1", Call(sample((64, 8), gen), sample((8,), gen), 0.3, True, True, -1, seed=7)
    yield "eval_dim_minus_1", Call(sample((50, 8), gen), sample((8,), gen), 0.5, False, False, -1)
    # every z about −300 … −200: exp(z) underflows in float32, so the log-sum-exp must be shifted by the true max
    # (a running max that starts at 0, or padding loaded as 0, leaves Σ exp = 0). n = 200 is not a power of 2.
    a = torch.cat([uniform((200, 1), gen, -300.0, -200.0), sample((200, 7), gen)], dim=1)
    yield "far_below_zero", Call(a, torch.cat([torch.ones(1), sample((7,), gen)]), 0.3, seed=8)
    # RNG structure along the only dimension: 2^15 elements, many blocks. log_softmax values are far from 0,
    # so every drop is observable.
    yield "rng_structure", Call(sample((1 << 15, 16), gen), sample((16,), gen), 0.5, seed=0x2545F4914F6CDD1D)
    a, v = sample((2048, 16), gen), sample((16,), gen)
    yield from stochastic.family("seed_family", lambda s: Call(a, v, 0.5, seed=s), 0x5DEECE66D, gen)


def random_cases(gen, mode):
    seed = stochastic.draw_seed
    yield "2048x129_p_half", Call(sample((2048, 129), gen, mode), sample((129,), gen, mode), 0.5, seed=seed(gen))
    yield "4099x64_p_0.1", Call(sample((4099, 64), gen, mode), sample((64,), gen, mode), 0.1, seed=seed(gen))
    yield "1000x257_p_0.8", Call(sample((1000, 257), gen, mode), sample((257,), gen, mode), 0.8, seed=seed(gen))
    yield "rng_structure", Call(sample((20_000, 16), gen, mode), sample((16,), gen, mode), stochastic.draw_p(gen, 0.3, 0.7),
                                True, stochastic.flag(gen), seed=seed(gen))
    yield "drawn_flags", Call(sample((777, 33), gen, mode), sample((33,), gen, mode), stochastic.draw_p(gen),
                              stochastic.flag(gen), stochastic.flag(gen), (0, -1)[stochastic.flag(gen)], seed=seed(gen))
    if mode == "standard":
        a, v = sample((2048, 16), gen, mode), sample((16,), gen, mode)
        yield from stochastic.family("seed_family", lambda s: Call(a, v, 0.5, seed=s), seed(gen), gen)


def perf_cases(gen):
    for n in (256, 1024, 4096):
        yield f"{n}x{n}", Call(sample((n, n), gen), sample((n,), gen), 0.5, seed=2024)


TASK = Task(
    id="Fusion/fused_mv_logsoftmax_dropout",
    entry="fused_mv_logsoftmax_dropout",
    signature="fused_mv_logsoftmax_dropout(input: Tensor, vec: Tensor, p: float = 0.5, training: bool = True, "
              "inplace: bool = False, dim: int = 0, seed: int = 0) -> Tensor",
    description="Computes z = input @ vec (input (n, m), vec (m,), float32, finite), s = log_softmax(z) along "
                "`dim` (0 or -1: z is 1-D; every z may lie far below 0, e.g. about −300 … −200), then "
                "dropout: when training and 0 < p < 1 each element of s is independently zeroed with "
                "probability p and otherwise scaled by 1/(1−p); with training=False or p = 0 the output is s; "
                "with p = 1 it is s·0. Returns a new float32 tensor of shape (n,). "
                "`inplace` only concerns the intermediate s, so it has no visible effect. `seed` (an int) drives "
                "the random mask; it replaces torch's global generator.",
    math=r"z = A v,\quad s_i = z_i - \log\sum_j e^{z_j},\quad y_i = \frac{m_i s_i}{1-p},\ "
         r"m_i \sim \mathrm{Bernoulli}(1-p)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input (n, m) and vec (m,) float32; output float32 (n,)", tolerance=TOLERANCE,
                      deterministic=True,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is log_softmax(input @ vec)/(1−p), "
                            "recomputed in float64; atol is scaled by its RMS to allow for fp32 reassociation "
                            "of the length-m dot products."),
    flops=lambda call, out: 2.0 * call.args[0].numel() + 6.0 * out.numel(),
    check=check,
    choices={"dim": (0, -1)},
    deviations=(
        Deviation(Kind.SATISFIABLE, "the mask comes from torch's global generator and the output must equal "
                  "torch's own dropout bit for bit", "a `seed` argument drives the mask; the output is judged by "
                  "the law of dropout (kept or dropped values, tests of independent Bernoulli(p) drops, "
                  "independence across seeds)", "no kernel can reproduce torch's random stream", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (on torch's own mask)",
                  "kept values within 1e-5 + 1e-5·RMS(kept) of log_softmax(input @ vec)/(1−p) computed in float64",
                  "the length-m dot products may be summed in any order; atol scales with the values' magnitude"),
        Deviation(Kind.PERF, "31 square sizes 256² … 4096², float16 inputs", "256², 1024² and 4096², float32",
                  "a subset of upstream's sizes from small to the largest; float32 is the task's dtype (upstream's "
                  "correctness tests are float32 too)"),
    ),
)
