"""Fusion/fused_hardshrink_dropout: dropout (seeded, optionally in place) followed by hard shrinkage."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample

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
    x, lambd = a["input"].detach().cpu().double(), a["lambd"]
    kept = x / (1.0 - a["p"])
    if a["inplace"]:
        reason = stochastic.dropout_reason(x_after, expected[1], kept, 0.0, a["p"], TOLERANCE, "input (in place)")
        if reason:
            return reason
        # The result must shrink the very tensor the dropout wrote.
        return compare(out, F.hardshrink(x_after.detach().cpu(), lambd), TOLERANCE, "output")
    reason = compare(x_after, expected[1], Tolerance(0.0, 0.0), "input (must be unchanged)")
    if reason:
        return reason
    shrunk = F.hardshrink(kept, lambd)
    # |kept| within a few float32 ulps of lambd may shrink either way.
    edge = ((kept.abs() - lambd).abs() <= 1e-6 * kept.abs()) & (kept != 0)
    alt = torch.where(edge, torch.where(shrunk == 0, kept, torch.zeros_like(kept)), shrunk)
    return stochastic.dropout_reason(out, expected[0], shrunk, 0.0, a["p"], TOLERANCE, kept_alt=alt)


def seed(gen):
    return int(randint((), gen, 0, 2**31))


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


def random_cases(gen, mode):
    yield "vector_p_half", Call(sample((65_537,), gen, mode), 0.5, seed=seed(gen))
    yield "matrix_p_0.1", Call(sample((129, 257), gen, mode), 0.1, True, False, 0.3, seed=seed(gen))
    yield "batch_inplace_p_0.8", Call(sample((4, 31, 127), gen, mode), 0.8, True, True, 0.5, seed=seed(gen))


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
                      mutates=(0,),
                      notes=stochastic.DROPOUT_CONTRACT + " For the result the kept value is "
                            "hardshrink(input/(1−p)) (either outcome is accepted where |input/(1−p)| is within "
                            "1e-6 relative of lambd); with inplace=True the input's final value is judged as the "
                            "dropout and the result must equal hardshrink of it."),
    flops=elementwise_flops(4),
    check=check,
)
