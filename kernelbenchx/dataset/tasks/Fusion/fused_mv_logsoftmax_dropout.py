"""Fusion/fused_mv_logsoftmax_dropout: matrix-vector product, log-softmax over it, then seeded dropout."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, randint, sample

TOLERANCE = Tolerance(rtol=1e-5, atol=1e-5, scale="rms")


def reference(input: torch.Tensor, vec: torch.Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False, dim: int = 0, seed: int = 0) -> torch.Tensor:
    s = F.log_softmax(torch.mv(input, vec), dim=dim)
    return stochastic.seeded_dropout(s, p, training, seed, inplace)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    z = torch.mv(a["input"].detach().cpu().double(), a["vec"].detach().cpu().double())
    kept = F.log_softmax(z, dim=a["dim"]) / (1.0 - a["p"])
    return stochastic.dropout_reason(output, expected, kept, 0.0, a["p"], contract.tolerance)


def seed(gen):
    return int(randint((), gen, 0, 2**31))


def fixed_cases(gen):
    example = torch.arange(1.0, 16.0).reshape(5, 3)
    yield "catalogue_example_eval", Call(example, torch.tensor([0.1, 0.2, 0.3]), 0.2, False)
    yield "p_0.2", Call(sample((500, 33), gen), sample((33,), gen), 0.2, seed=3)
    yield "defaults_dim_minus_1", Call(sample((1000, 64), gen), sample((64,), gen), dim=-1, seed=4)
    yield "p_zero_identity", Call(sample((77, 9), gen), sample((9,), gen), 0.0)
    yield "p_one_zeros", Call(sample((77, 9), gen), sample((9,), gen), 1.0)
    yield "inplace_no_visible_effect", Call(sample((300, 20), gen), sample((20,), gen), 0.5, True, True, seed=5)
    yield "single_row", Call(sample((1, 40), gen), sample((40,), gen), 0.5, seed=6)


def random_cases(gen, mode):
    yield "2048x129_p_half", Call(sample((2048, 129), gen, mode), sample((129,), gen, mode), 0.5, seed=seed(gen))
    yield "4099x64_p_0.1", Call(sample((4099, 64), gen, mode), sample((64,), gen, mode), 0.1, seed=seed(gen))
    yield "1000x257_p_0.8", Call(sample((1000, 257), gen, mode), sample((257,), gen, mode), 0.8, seed=seed(gen))


def perf_cases(gen):
    for n, m in ((256, 256), (4096, 4096), (16384, 8192)):
        yield f"{n}x{m}", Call(sample((n, m), gen), sample((m,), gen), 0.5, seed=2024)


TASK = Task(
    id="Fusion/fused_mv_logsoftmax_dropout",
    entry="fused_mv_logsoftmax_dropout",
    signature="fused_mv_logsoftmax_dropout(input: Tensor, vec: Tensor, p: float = 0.5, training: bool = True, "
              "inplace: bool = False, dim: int = 0, seed: int = 0) -> Tensor",
    description="Computes z = input @ vec (input (n, m), vec (m,), float32, finite), s = log_softmax(z) along "
                "`dim` (0 or -1: z is 1-D), then dropout: when training and 0 < p < 1 each element of s is "
                "independently zeroed with probability p and otherwise scaled by 1/(1−p); with training=False or "
                "p = 0 the output is s; with p = 1 it is s·0. Returns a new float32 tensor of shape (n,). "
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
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is log_softmax(input @ vec)/(1−p), "
                            "recomputed in float64; atol is scaled by its RMS to allow for fp32 reassociation "
                            "of the length-m dot products."),
    flops=lambda call, out: 2.0 * call.args[0].numel() + 6.0 * out.numel(),
    check=check,
)
