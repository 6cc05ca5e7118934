"""Fusion/fused_hardshrink_dropout: dropout (seeded, optionally in place) followed by hard shrinkage."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample

TOLERANCE = Tolerance(rtol=1e-5, atol=1e-5)


def reference(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
              lambd: float = 0.5, seed: int = 0) -> torch.Tensor:
    return F.hardshrink(stochastic.seeded_dropout(input, p, training, seed, inplace), lambd)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    if not isinstance(output, (tuple, list)) or len(output) != 2:
        return "output: expected (result, input after the call)"
    out, x_after = output
    x, lambd = a["input"].detach().double(), a["lambd"]
    kept = x / (1.0 - a["p"])
    if a["inplace"]:
        # The result must shrink the very tensor the dropout wrote; that tensor must be a dropout outcome (checked
        # last: its statistical battery may be deferred until the judge has freed its GPU tensors).
        reason = (stochastic.tensor_reason(x_after, expected[1], "input (in place)")
                  or compare(out, F.hardshrink(x_after.detach(), lambd), TOLERANCE, "output"))
        if reason:
            return reason
        return stochastic.dropout_reason(x_after, expected[1], kept, 0.0, a["p"], TOLERANCE, "input (in place)",
                                         call=call)
    reason = compare(x_after, expected[1], Tolerance(0.0, 0.0), "input (must be unchanged)")
    if reason:
        return reason
    shrunk = F.hardshrink(kept, lambd)
    # |kept| within a few float32 ulps of lambd may shrink either way.
    edge = ((kept.abs() - lambd).abs() <= 1e-6 * kept.abs()) & (kept != 0)
    alt = torch.where(edge, torch.where(shrunk == 0, kept, torch.zeros_like(kept)), shrunk)
    return stochastic.dropout_reason(out, expected[0], shrunk, 0.0, a["p"], TOLERANCE, kept_alt=alt, call=call)


def spread(shape, gen, mode="standard"):
    """Values with |x| ≥ 0.5: with lambd < 0.5 every kept element (|x|/(1−p) > lambd) survives the shrinkage
    and differs from a dropped one, so the whole mask is observable."""
    return stochastic.distinguishable(sample(shape, gen, mode))


def fixed_cases(gen):
    yield "defaults", Call(sample((64, 100), gen), seed=1)
    yield "eval_mode", Call(sample((33, 65), gen), 0.5, False)
    yield "p_zero_identity", Call(sample((1000,), gen), 0.0, True, lambd=0.3)
    yield "p_one_zeros", Call(sample((257,), gen), 1.0, True)
    yield "p_0.2_lambda_1", Call(sample((3, 17, 129), gen), 0.2, True, False, 1.0, seed=7)
    yield "lambda_zero_p_0.7", Call(sample((40, 50), gen), 0.7, lambd=0.0, seed=8)
    yield "inplace", Call(sample((31, 64), gen), 0.3, True, True, 0.5, seed=9)
    yield "inplace_eval_leaves_input", Call(sample((10, 10), gen), 0.3, False, True)
    yield "exact_lambda_values", Call(torch.tensor([-1.0, -0.25, 0.25, 1.0, 0.5, -0.5] * 200), 0.5, seed=10)
    # No dropout (eval, or p = 0): D = input exactly, so |D| == lambd must shrink to 0 (strict >).
    at_lambda = torch.tensor([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 0.75] * 40)
    yield "exact_lambda_eval", Call(at_lambda, 0.5, False, lambd=0.5)
    yield "exact_lambda_p_zero", Call(at_lambda.reshape(16, 20), 0.0, True, lambd=0.25)
    # RNG structure: batch elements × rows × columns spanning many blocks, every drop observable.
    yield "rng_structure", Call(spread((8, 32, 128), gen), 0.5, lambd=0.25, seed=0x2545F4914F6CDD1D)
    x = spread((4, 16, 32), gen)
    yield from stochastic.family("seed_family", lambda s: Call(x, 0.5, lambd=0.25, seed=s), 0x5DEECE66D, gen)


def random_cases(gen, mode):
    seed = stochastic.draw_seed
    yield "vector_p_half", Call(sample((65_537,), gen, mode), 0.5, seed=seed(gen))
    yield "matrix_p_0.1", Call(sample((129, 257), gen, mode), 0.1, True, False, 0.3, seed=seed(gen))
    yield "batch_inplace_p_0.8", Call(sample((4, 31, 127), gen, mode), 0.8, True, True, 0.5, seed=seed(gen))
    p = stochastic.draw_p(gen, 0.3, 0.7)
    yield "rng_structure", Call(spread((8, 24, 160), gen, mode), p, True, stochastic.flag(gen), 0.2, seed=seed(gen))
    yield "drawn_flags", Call(sample((33, 65), gen, mode), stochastic.draw_p(gen), stochastic.flag(gen),
                              stochastic.flag(gen), 0.4, seed=seed(gen))
    if mode == "standard":
        x = spread((4, 16, 32), gen, mode)
        yield from stochastic.family("seed_family", lambda s: Call(x, 0.5, lambd=0.25, seed=s), seed(gen), gen)


def perf_cases(gen):
    for n in (1 << 16, 1 << 24, 1 << 27):
        yield f"n2^{n.bit_length() - 1}", Call(sample((n,), gen), 0.5, seed=12345)


TASK = Task(
    id="Fusion/fused_hardshrink_dropout",
    entry="fused_hardshrink_dropout",
    signature="fused_hardshrink_dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False, "
              "lambd: float = 0.5, seed: int = 0) -> Tensor",
    description="Dropout followed by hard shrinkage, on a float32 tensor of any shape (finite values). "
                "D = dropout(input, p): when training and 0 < p < 1 each element is independently zeroed with "
                "probability p and otherwise scaled by 1/(1−p); with training=False or p = 0, D = input; with "
                "p = 1, D = input·0. Then out = hardshrink(D, lambd): D where |D| > lambd, else 0. The output is a "
                "new float32 tensor of input's shape. With inplace=True the dropout result D is also written back "
                "into `input` (as torch's in-place dropout does), using the same mask as the output; with "
                "inplace=False `input` is left unchanged. `seed` (an int) drives the random mask; it replaces "
                "torch's global generator.",
    math=r"D_i = \frac{m_i x_i}{1-p},\ m_i \sim \mathrm{Bernoulli}(1-p);\quad "
         r"\mathrm{out}_i = D_i\,[\,|D_i| > \lambda\,]",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input float32, any shape; output float32, same shape", tolerance=TOLERANCE,
                      mutates=(0,), deterministic=True,
                      notes=stochastic.DROPOUT_CONTRACT + " For the result the kept value is "
                            "hardshrink(input/(1−p)) (either outcome is accepted where |input/(1−p)| is within "
                            "1e-6 relative of lambd); with inplace=True the input's final value is judged as the "
                            "dropout and the result must equal hardshrink of it."),
    flops=elementwise_flops(4),
    check=check,
    deviations=(
        Deviation(Kind.SATISFIABLE, "the mask comes from torch's global generator and the output must equal "
                  "torch's own dropout bit for bit", "a `seed` argument drives the mask; the output is judged by "
                  "the law of dropout (kept or dropped values, tests of independent Bernoulli(p) drops, "
                  "independence across seeds)", "no kernel can reproduce torch's random stream", in_prompt=True),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "1-D 2^16, 2^24 and 2^27 elements",
                  "a subset of upstream's sizes from small to the largest; below 2^16 elements measures launch "
                  "overhead"),
    ),
)
