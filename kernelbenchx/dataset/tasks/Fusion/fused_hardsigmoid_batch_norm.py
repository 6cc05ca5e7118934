"""Fusion/fused_hardsigmoid_batch_norm: batch normalization (eval or training) followed by Hardsigmoid."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, sample, uniform


def reference(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight=None, bias=None,
              training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> torch.Tensor:
    return F.hardsigmoid(F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps))


def stats(c, gen, mode="standard"):
    """Running mean and (positive) running variance buffers for c channels."""
    return sample((c,), gen, mode) * 0.5, uniform((c,), gen, 0.5, 2.0)


def fixed_cases(gen):
    yield "eval_identity_stats", Call(sample((4, 3, 8, 8), gen) * 4, torch.zeros(3), torch.ones(3))
    yield "eval_affine", Call(sample((2, 5, 6, 7), gen), *stats(5, gen), sample((5,), gen), sample((5,), gen))
    yield "example_training", Call(sample((4, 3, 8, 8), gen), torch.zeros(3), torch.ones(3), torch.ones(3),
                                   torch.zeros(3), training=True)
    yield "training_2d_momentum", Call(sample((16, 6), gen) * 3 + 1, *stats(6, gen), sample((6,), gen) * 4,
                                       sample((6,), gen), True, 0.25)
    yield "eval_3d_eps", Call(sample((3, 4, 10), gen), *stats(4, gen), None, None, False, 0.1, 0.5)
    yield "saturating", Call(torch.linspace(-10.0, 10.0, 2 * 2 * 25).reshape(2, 2, 25), torch.zeros(2),
                             torch.ones(2), torch.tensor([1.0, 3.0]), torch.tensor([0.0, -1.0]))


def random_cases(gen, mode):
    yield "eval_n8_c64_17x23", Call(sample((8, 64, 17, 23), gen, mode) * 3, *stats(64, gen, mode),
                                    sample((64,), gen, mode), sample((64,), gen, mode))
    yield "training_n4_c32_31x33", Call(sample((4, 32, 31, 33), gen, mode) * 2 + 0.5, *stats(32, gen, mode),
                                        sample((32,), gen, mode) * 3, sample((32,), gen, mode), True, 0.2)
    yield "eval_seq_no_affine", Call(sample((16, 48, 100), gen, mode) * 3, *stats(48, gen, mode))


def perf_cases(gen):
    for h, w in ((128, 128), (1448, 1449)):
        yield f"eval_1x64x{h}x{w}", Call(sample((1, 64, h, w), gen), *stats(64, gen), sample((64,), gen),
                                         sample((64,), gen))
    yield "training_16x64x256x256", Call(sample((16, 64, 256, 256), gen), *stats(64, gen), sample((64,), gen),
                                         sample((64,), gen), True)


TASK = Task(
    id="Fusion/fused_hardsigmoid_batch_norm",
    entry="fused_hardsigmoid_batch_norm",
    signature="fused_hardsigmoid_batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, "
              "weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, "
              "momentum: float = 0.1, eps: float = 1e-5) -> Tensor",
    description="Batch normalization over channel dim 1 of x (N, C) or (N, C, *), then Hardsigmoid. With "
                "training=False, each channel uses the running buffers: z = (x − running_mean[c]) / "
                "sqrt(running_var[c] + eps). With training=True, each channel uses its batch statistics over N and "
                "all positions (mean μ and biased variance σ²) for z, and the buffers are updated IN PLACE: "
                "running_mean = (1 − momentum)·running_mean + momentum·μ and running_var = (1 − momentum)·"
                "running_var + momentum·σ²·n/(n − 1), n the per-channel element count. Then z·weight[c] + bias[c] "
                "(None means 1/0) and Hardsigmoid: clamp(t/6 + 1/2, 0, 1). Returns a new float32 tensor of x's "
                "shape. The upstream `inplace` argument (Hardsigmoid on a temporary) is dropped.",
    math=r"y = \mathrm{clamp}\!\left(\tfrac{1}{6}\left(\gamma_c\frac{x - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}} + "
         r"\beta_c\right) + \tfrac{1}{2},\ 0,\ 1\right)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="all tensors float32; output float32 with x's shape",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      mutates=(1, 2),
                      notes="running_mean and running_var are compared after the call: unchanged when "
                            "training=False, updated as described when training=True."),
    flops=elementwise_flops(6),
)
