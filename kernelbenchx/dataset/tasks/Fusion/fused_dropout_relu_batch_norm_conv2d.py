"""Fusion/fused_dropout_relu_batch_norm_conv2d: conv2d, batch norm on batch statistics, ReLU, seeded dropout."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset import precision, stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def normalized(input, weight, bias, stride, padding, dilation, groups) -> torch.Tensor:
    x = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    # No running statistics exist, so the batch's own statistics are used whatever `training` says
    # (upstream passed training=training here, which raises for training=False).
    return F.relu(F.batch_norm(x, None, None, training=True))


def reference(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0,
              dilation=1, groups: int = 1, p: float = 0.5, training: bool = True, inplace: bool = False,
              seed: int = 0) -> torch.Tensor:
    x = normalized(input, weight, bias, stride, padding, dilation, groups)
    return stochastic.seeded_dropout(x, p, training, seed, inplace)


def check(call, output, expected, contract):
    a = stochastic.bind(reference, call)
    if not stochastic.stochastic(a["p"], a["training"]):
        return contract.compare(output, expected)
    bias = None if a["bias"] is None else a["bias"].detach().double()
    x = normalized(a["input"].detach().double(), a["weight"].detach().double(), bias, a["stride"],
                   a["padding"], a["dilation"], a["groups"])
    return stochastic.dropout_reason(output, expected, x / (1.0 - a["p"]), 0.0, a["p"], contract.tolerance,
                                     call=call)


def fixed_cases(gen):
    yield "catalogue_example", Call(sample((1, 4, 8, 8), gen), sample((8, 4, 3, 3), gen), stride=1, padding=1, seed=1)
    yield "eval_mode_bias", Call(sample((2, 3, 10, 10), gen), sample((6, 3, 3, 3), gen), sample((6,), gen),
                                 training=False)
    yield "stride2_pad1_p_0.3", Call(sample((2, 4, 15, 13), gen), sample((8, 4, 3, 3), gen), None, 2, 1, p=0.3, seed=2)
    yield "dilation2_groups2", Call(sample((2, 4, 12, 12), gen), sample((6, 2, 3, 3), gen), sample((6,), gen),
                                    1, 2, 2, 2, 0.5, seed=3)
    yield "tuple_stride_padding", Call(sample((1, 3, 9, 16), gen), sample((4, 3, 2, 3), gen), None, (1, 2), (0, 1),
                                       p=0.6, seed=4)
    yield "p_zero_identity", Call(sample((1, 2, 6, 6), gen), sample((3, 2, 3, 3), gen), p=0.0)
    yield "p_one_zeros_inplace", Call(sample((1, 2, 6, 6), gen), sample((3, 2, 3, 3), gen), p=1.0, inplace=True)
    yield "eval_inplace", Call(sample((2, 2, 6, 6), gen), sample((3, 2, 3, 3), gen), training=False, inplace=True)
    # RNG structure: 8 batch elements × 16 channels × 8 × 32 pixels over many tiles (ReLU zeroes about half the
    # elements, whose two outcomes coincide; the other half carries the mask).
    yield "rng_structure", Call(sample((8, 4, 8, 32), gen), sample((16, 4, 3, 3), gen), sample((16,), gen), 1, 1,
                                p=0.5, seed=0x2545F4914F6CDD1D)
    x, w = sample((2, 3, 16, 16), gen), sample((8, 3, 3, 3), gen)
    yield from stochastic.family("seed_family", lambda s: Call(x, w, None, 1, 1, p=0.5, seed=s), 0x5DEECE66D, gen)
    # Channel means (bias 200…1000) far above the conv's spread (≈ 5): per-tile statistics must keep fp32 (an fp16
    # tile mean is off by up to 0.25) and the variance must not cancel (E[x²] − E[x]²); 288 pixels = 4.5 tiles of 64
    yield "large_channel_offset", Call(sample((2, 3, 12, 12), gen), sample((6, 3, 3, 3), gen),
                                       uniform((6,), gen, 200.0, 1000.0), 1, 1, p=0.3, seed=5)
    # Tiny weights: each channel's variance (≈ 7e-6) is of the order of eps = 1e-5, so eps's exact value and
    # placement (inside the square root, added to the biased variance) show in every output
    yield "variance_near_eps_eval", Call(sample((2, 3, 12, 12), gen), sample((6, 3, 3, 3), gen) * 5e-4, None, 1, 1,
                                         training=False)


def random_cases(gen, mode):
    seed, flip = stochastic.draw_seed, stochastic.flag
    yield "rgb_3x3_pad1", Call(sample((2, 3, 32, 32), gen, mode), sample((16, 3, 3, 3), gen, mode),
                               sample((16,), gen, mode), 1, 1, seed=seed(gen))
    yield "c8_3x3_stride2_p_0.2", Call(sample((1, 8, 31, 29), gen, mode), sample((24, 8, 3, 3), gen, mode), None, 2, 1,
                                       p=0.2, seed=seed(gen))
    yield "grouped_pointwise_p_0.7", Call(sample((4, 16, 15, 15), gen, mode), sample((32, 8, 1, 1), gen, mode),
                                          sample((32,), gen, mode), groups=2, p=0.7, seed=seed(gen))
    yield "drawn_flags", Call(sample((2, 4, 11, 13), gen, mode), sample((6, 4, 3, 3), gen, mode),
                              sample((6,), gen, mode), 1, 1, p=stochastic.draw_p(gen), training=flip(gen),
                              inplace=flip(gen), seed=seed(gen))
    yield "rng_structure", Call(sample((8, 4, 8, 40), gen, mode), sample((16, 4, 3, 3), gen, mode),
                                sample((16,), gen, mode), 1, 1, p=stochastic.draw_p(gen, 0.3, 0.7),
                                inplace=flip(gen), seed=seed(gen))
    if mode == "standard":
        x, w = sample((2, 3, 16, 16), gen, mode), sample((8, 3, 3, 3), gen, mode)
        yield from stochastic.family("seed_family", lambda s: Call(x, w, None, 1, 1, p=0.5, seed=s), seed(gen), gen)


def perf_cases(gen):
    for hw in (64, 512, 2048):
        yield f"1x3x{hw}x{hw}_to_64", Call(sample((1, 3, hw, hw), gen), sample((64, 3, 3, 3), gen), sample((64,), gen),
                                           1, 1, seed=5)


def flops(call, out):
    return 2.0 * out.numel() * call.args[1][0].numel() + 10.0 * out.numel()


TASK = Task(
    id="Fusion/fused_dropout_relu_batch_norm_conv2d",
    entry="fused_dropout_relu_batch_norm_conv2d",
    signature="fused_dropout_relu_batch_norm_conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, "
              "stride=1, padding=0, dilation=1, groups: int = 1, p: float = 0.5, training: bool = True, "
              "inplace: bool = False, seed: int = 0) -> Tensor",
    description="Computes x = conv2d(input, weight, bias, stride, padding, dilation, groups) (float32, finite; "
                "input (N, C_in, H, W), weight (C_out, C_in/groups, kH, kW), optional bias (C_out,); stride, "
                "padding and dilation are ints or (h, w) pairs; zero padding), then batch normalization with the "
                "batch's own statistics: per channel c, mean and biased variance over (N, H_out, W_out), "
                "x̂ = (x − mean)/√(var + 1e-5), no affine; then ReLU; then dropout: when training and 0 < p < 1 "
                "each element is independently zeroed with probability p and otherwise scaled by 1/(1−p); with "
                "training=False or p = 0 nothing changes; with p = 1 everything is multiplied by 0. `training` "
                "only switches dropout: there are no running statistics, so batch statistics are used either way. "
                "Returns a new float32 (N, C_out, H_out, W_out) tensor. `inplace` only concerns intermediates, so "
                "it has no visible effect. `seed` (an int) drives the random mask; it replaces torch's global "
                "generator.",
    math=r"\hat{x}_{c} = \frac{x_c - \mu_c}{\sqrt{\sigma_c^2 + 10^{-5}}},\quad "
         r"y = \frac{m \odot \max(\hat{x}, 0)}{1-p},\ m \sim \mathrm{Bernoulli}(1-p)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="input, weight, bias float32; output float32 (N, C_out, H_out, W_out)",
                      tolerance=Tolerance(rtol=1e-2, atol=1e-2, scale="rms", rel_rms=precision.TF32_REL_RMS),
                      tf32=True, deterministic=True, precision=precision.TF32_PRECISION,
                      notes=stochastic.DROPOUT_CONTRACT + " The kept value is ReLU(BatchNorm(conv))/(1−p) "
                            "recomputed in float64; where ReLU gives 0, kept and dropped coincide. Tolerance is "
                            "RMS-scaled for TF32 convolutions; the relative RMS bound applies to the distance from "
                            "the nearer of the dropped and kept values. Batch statistics may be accumulated in any "
                            "order, but deterministically (the same inputs and seed give the same bits)."),
    flops=flops,
    unit="tf32",
    check=check,
    deviations=(
        Deviation(Kind.UPSTREAM_BUG, "batch_norm(training=training) without running statistics, which raises for "
                  "training=False", "batch statistics are used whatever `training` says; `training` only switches "
                  "dropout", "upstream's reference cannot run the documented training=False case", in_prompt=True),
        Deviation(Kind.SATISFIABLE, "the mask comes from torch's global generator and the output must equal "
                  "torch's own dropout bit for bit", "a `seed` argument drives the mask; the output is judged by "
                  "the law of dropout (kept or dropped values, tests of independent Bernoulli(p) drops, "
                  "independence across seeds)", "no kernel can reproduce torch's random stream", in_prompt=True),
        Deviation(Kind.TOLERANCE, "assert_close at rtol = atol = 1e-5 (on torch's own mask)",
                  "1e-2·RMS + 1e-2·|ref| elementwise and relative RMS error ≤ 1e-3 against a float64 recomputation",
                  "TF32 tensor-core convolutions are allowed; the relative RMS bound still rejects bf16 operands"),
        Deviation(Kind.PERF, "7 sizes 1×3×h×h → 64 channels for h = 32 … 2048", "h = 64, 512 and 2048",
                  "a subset of upstream's sizes from small to the largest"),
    ),
)
