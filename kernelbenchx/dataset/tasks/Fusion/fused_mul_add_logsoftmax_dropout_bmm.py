"""Fusion/fused_mul_add_logsoftmax_dropout_bmm: (x1·x2 + other) → log-softmax → seeded dropout → bmm."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance, compare
from kernelbenchx.dataset.task import Call, Task, randint, sample


def reference(input1: torch.Tensor, input2: torch.Tensor, other: torch.Tensor, mat2: torch.Tensor, p: float = 0.5,
              training: bool = True, inplace: bool = False, dim: int = -1, seed: int = 0) -> torch.Tensor:
    logp = F.log_softmax(torch.add(torch.mul(input1, input2), other), dim=dim)
    return torch.bmm(stochastic.seeded_dropout(logp, p, training, seed, inplace), mat2)


def check(call, output, expected, contract):
    """The dropout sits before the bmm, so the mask is read back from the output: with D_in ≤ D_out and mat2 of
    full row rank, D = output · pinv(mat2) (least squares, float64). Each element of D is classified as dropped
    (near 0) or kept (near log_softmax/(1−p)); the output must then equal bmm(D_classified, mat2) within the
    tolerance, and the classified mask must pass the binomial tests."""
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    reason = stochastic.tensor_reason(output, expected, "output")
    if reason:
        return reason
    if not torch.isfinite(output).all():
        return "output: non-finite values"
    x1, x2, other, mat2 = (a[k].detach().cpu().double() for k in ("input1", "input2", "other", "mat2"))
    kept = F.log_softmax(x1 * x2 + other, dim=a["dim"]) / (1.0 - a["p"])
    recovered = torch.linalg.lstsq(mat2.mT, output.detach().cpu().double().mT).solution.mT
    dropped = recovered.abs() < (recovered - kept).abs()
    rebuilt = torch.bmm(torch.where(dropped, 0.0, kept), mat2).to(expected.dtype)
    reason = compare(output.detach().cpu(), rebuilt, contract.tolerance,
                     "output vs bmm(dropout mask read back from the output, mat2)")
    if reason:
        return reason
    known = kept.abs() > 0.05 * kept.pow(2).mean().sqrt()
    return stochastic.mask_reason(dropped & known, known, a["p"], "dropout before bmm")


def seed(gen):
    return int(randint((), gen, 0, 2**31))


def fixed_cases(gen):
    # mat2 is (B, D_in, D_out) with D_out ≥ D_in in every case, so the checker can read the mask back.
    def uni(*shape):
        return torch.rand(shape, generator=gen)
    yield "catalogue_example", Call(uni(2, 3, 4), uni(2, 3, 4), uni(2, 3, 4), sample((2, 4, 5), gen), seed=1)
    yield "p_0.3", Call(sample((2, 8, 6), gen), sample((2, 8, 6), gen), sample((2, 8, 6), gen), sample((2, 6, 12), gen),
                        0.3, seed=2)
    yield "inplace_no_visible_effect", Call(sample((3, 5, 8), gen), sample((3, 5, 8), gen), sample((3, 5, 8), gen),
                                            sample((3, 8, 16), gen), 0.5, True, True, seed=3)
    yield "dim_1", Call(sample((2, 40, 16), gen), sample((2, 40, 16), gen), sample((2, 40, 16), gen),
                        sample((2, 16, 32), gen), 0.5, dim=1, seed=4)
    yield "eval_mode", Call(sample((2, 4, 8), gen), sample((2, 4, 8), gen), sample((2, 4, 8), gen),
                            sample((2, 8, 8), gen), 0.5, False)
    yield "p_zero_identity", Call(sample((2, 4, 8), gen), sample((2, 4, 8), gen), sample((2, 4, 8), gen),
                                  sample((2, 8, 3), gen), 0.0)
    yield "p_one_zeros", Call(sample((2, 4, 8), gen), sample((2, 4, 8), gen), sample((2, 4, 8), gen),
                              sample((2, 8, 3), gen), 1.0)
    yield "broadcast_input2_and_other", Call(sample((3, 20, 24), gen), sample((1, 20, 24), gen), sample((24,), gen),
                                             sample((3, 24, 48), gen), 0.4, seed=5)


def random_cases(gen, mode):
    yield "b4_16x64_to_128_p_0.1", Call(sample((4, 16, 64), gen, mode), sample((4, 16, 64), gen, mode),
                                        sample((4, 16, 64), gen, mode), sample((4, 64, 128), gen, mode), 0.1,
                                        seed=seed(gen))
    yield "b2_100x96_to_200", Call(sample((2, 100, 96), gen, mode), sample((2, 100, 96), gen, mode),
                                   sample((2, 100, 96), gen, mode), sample((2, 96, 200), gen, mode), 0.5,
                                   seed=seed(gen))
    yield "b8_33x40_to_81_dim1_p_0.8", Call(sample((8, 33, 40), gen, mode), sample((8, 33, 40), gen, mode),
                                            sample((8, 33, 40), gen, mode), sample((8, 40, 81), gen, mode), 0.8,
                                            dim=1, seed=seed(gen))


def perf_cases(gen):
    for n, d in ((256, 128), (1024, 512), (2048, 1024)):
        x = [sample((32, n, d), gen) for _ in range(3)]
        yield f"b32_{n}x{d}_to_{2 * d}", Call(*x, sample((32, d, 2 * d), gen), 0.5, seed=11)


def flops(call, out):
    b, n, d_in = call.args[3].shape[0], out.shape[1], call.args[3].shape[1]
    return 2.0 * b * n * d_in * out.shape[2] + 8.0 * b * n * d_in


TASK = Task(
    id="Fusion/fused_mul_add_logsoftmax_dropout_bmm",
    entry="fused_mul_add_logsoftmax_dropout_bmm",
    signature="fused_mul_add_logsoftmax_dropout_bmm(input1: Tensor, input2: Tensor, other: Tensor, mat2: Tensor, "
              "p: float = 0.5, training: bool = True, inplace: bool = False, dim: int = -1, seed: int = 0) -> Tensor",
    description="Computes S = input1·input2 + other (float32, finite, broadcast together to (B, N, D_in)), "
                "L = log_softmax(S) along `dim` (-1: the features; 1: the N axis), dropout D of L (when training "
                "and 0 < p < 1 each element is independently zeroed with probability p and otherwise scaled by "
                "1/(1−p); with training=False or p = 0, D = L; with p = 1, D = L·0), and returns "
                "Y = bmm(D, mat2) for mat2 (B, D_in, D_out): a new float32 (B, N, D_out) tensor. `inplace` only "
                "concerns the intermediate L, so it has no visible effect. `seed` (an int) drives the random "
                "mask; it replaces torch's global generator.",
    math=r"L = \log\mathrm{softmax}(X_1 \odot X_2 + O),\quad Y = \mathrm{bmm}\!\left(\frac{m \odot L}{1-p}, M\right),"
         r"\ m \sim \mathrm{Bernoulli}(1-p)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input1, input2, other, mat2 float32; output float32 (B, N, D_out)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms"), tf32=True,
                      notes=stochastic.DROPOUT_CONTRACT.replace(
                          "every output element must equal", "every element of the dropout result D must equal")
                      + " D is not an output here: the checker reads it back from Y by least squares (the test "
                        "cases have D_out ≥ D_in), classifies each element as dropped or kept, and requires Y to "
                        "equal bmm(D, mat2) within the tolerance (RMS-scaled for TF32 products)."),
    flops=flops,
    unit="tf32",
    check=check,
)
