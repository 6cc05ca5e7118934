"""Activation/combined_activation: tanh(sigmoid(X·W1)) ⊙ W2 + b, with batched X and broadcast W2 and b."""

import math

import torch

from kernelbenchx.dataset import precision
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input: torch.Tensor, weight1: torch.Tensor, weight2: torch.Tensor,
              bias: torch.Tensor) -> torch.Tensor:
    return torch.tanh(torch.sigmoid(torch.matmul(input, weight1))) * weight2 + bias


def operands(gen, lead, d_in, d_out, w2_shape, b_shape, mode="standard"):
    """X (*lead, d_in); W1 scaled by 1/√d_in so X·W1 stays O(1) and the sigmoid does not saturate."""
    return Call(sample((*lead, d_in), gen, mode), sample((d_in, d_out), gen, mode) / math.sqrt(d_in),
                sample(w2_shape, gen, mode), sample(b_shape, gen, mode))


def fixed_cases(gen):
    yield "tiny", operands(gen, (5,), 10, 3, (3,), (3,))
    yield "upstream_shapes", operands(gen, (4,), 3, 6, (4, 6), (4, 6))
    yield "zero_input", Call(torch.zeros(4, 8), sample((8, 6), gen), sample((6,), gen), sample((6,), gen))
    yield "large_logits", Call(sample((16, 32), gen) * 4, sample((32, 24), gen) / 4, sample((24,), gen),
                               torch.zeros(24))
    yield "full_w2_scalar_bias", operands(gen, (17,), 33, 19, (17, 19), (1,))
    yield "batched_row_w2", operands(gen, (3, 7), 16, 9, (7, 1), (9,))
    yield "two_batch_dims", operands(gen, (2, 3, 5), 24, 17, (3, 1, 17), (1,))
    yield "single_row", operands(gen, (1,), 64, 40, (40,), (1, 40))
    yield "empty_rows", operands(gen, (0,), 16, 8, (8,), (8,))
    # 600 rows: more row tiles than one tile group (a partial last group), and 65 columns (a partial last
    # column tile), so a tile order that miscounts the column tiles skips or repeats tiles
    yield "rows600_cols65", operands(gen, (600,), 16, 65, (65,), (65,))
    # X·W1 ≈ 0.53 everywhere: sigmoid ≈ 0.63, just above 0.625 where a tanh of [0, 1] is least damped
    # (d tanh / tanh largest); a tanh approximation off by 1e-3 there exceeds the relative RMS bound
    yield "sigmoid_near_0.63", Call(uniform((16, 8), gen, 0.95, 1.05), torch.full((8, 12), 0.53 / 8),
                                    sample((12,), gen), torch.zeros(12))


def random_cases(gen, mode):
    yield "matrix", operands(gen, (127,), 96, 65, (65,), (65,), mode)
    yield "batched", operands(gen, (3, 45), 64, 80, (45, 80), (80,), mode)
    yield "wide", operands(gen, (200,), 256, 129, (129,), (200, 1), mode)
    yield "upstream_random", operands(gen, (256,), 128, 192, (256, 192), (256, 192), mode)


def perf_cases(gen):
    yield "n256", operands(gen, (256,), 256, 256, (256,), (256,))
    yield "n1024", operands(gen, (1024,), 1024, 1024, (1024,), (1024,))
    yield "n2048", operands(gen, (2048,), 2048, 2048, (2048,), (2048,))


def flops(call, out):
    x, w1 = call.args[0], call.args[1]
    return 2.0 * x.numel() * w1.shape[1] + 10.0 * out.numel()


TASK = Task(
    id="Activation/combined_activation",
    entry="combined_activation",
    signature="combined_activation(input: Tensor, weight1: Tensor, weight2: Tensor, bias: Tensor) -> Tensor",
    description="Computes Y = tanh(sigmoid(X·W1)) ⊙ W2 + b. `input` X has shape (*, N, D_in) with any number of "
                "leading batch dimensions (possibly none); `weight1` W1 is (D_in, D_out) and multiplies the last "
                "dimension of X, giving Z of shape (*, N, D_out). sigmoid and tanh are applied elementwise to Z, "
                "the result is multiplied elementwise by `weight2` and then `bias` is added; both broadcast against "
                "(*, N, D_out) by the usual broadcasting rules (e.g. shape (D_out,), (N, 1), (N, D_out) or (1,)), "
                "and the output has the broadcast shape. N may be 0. (torch's `out=` argument is not part of this "
                "task.)",
    math=r"Y = \tanh\big(\sigma(X W_1)\big) \odot W_2 + b,\quad \sigma(z) = 1/(1+e^{-z})",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="all inputs float32; output float32",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True,
                      precision=precision.TF32_PRECISION,
                      notes="The tolerance admits TF32 products in X·W1 (about 1e-3 relative error), which the "
                            "sigmoid/tanh then damp; atol is 1e-2 × RMS of the reference output."),
    flops=flops,
    unit="tf32",
    deviations=(
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5",
                  "rtol 1e-2, atol 1e-2·RMS(Y), and relative RMS error ≤ 1e-3: TF32 products pass, bf16 fail",
                  "X·W1 is a matrix product; kbx admits TF32 tensor cores for fp32 products across its matmul-class "
                  "tasks, and the relative RMS bound still rejects lower operand precision"),
        Deviation(Kind.COVERAGE, "2-D X only in the tests (the reference's torch.mm rejects the batched X its "
                  "description and catalogue allow); W2 and b of the full output shape",
                  "batched X with one or two batch dimensions, W2 and b of shapes (D_out,), (N, 1), (1,) and full, "
                  "an empty N and a single row",
                  "the catalogue documents (*, N, D_in) inputs and broadcast W2/b; on 2-D inputs both references "
                  "agree"),
        Deviation(Kind.COVERAGE, "an `out=` argument (never passed by the tests)", "no `out=` argument",
                  "the output is returned as a new tensor; the values computed are the same"),
        Deviation(Kind.PERF, "6 square sizes N = D_in = D_out = 64 … 2048 with W2 and b of shape (D,), times summed",
                  "N = D_in = D_out = 256, 1024 and 2048 with W2 and b of shape (D,)",
                  "a subset spanning upstream's range; below 256 a call measures launch overhead"),
    ),
)
