"""Normalization/batch_norm: per-channel batch normalization, with batch or running statistics."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, sample, uniform


def reference(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
              momentum: float = 0.1, eps: float = 1e-5) -> torch.Tensor:
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def case(shape, gen, mode="standard", affine=True, stats=True, **kw):
    c = shape[1]
    x = 2.0 * sample(shape, gen, mode) + 0.5
    mean, var = (sample((c,), gen), uniform((c,), gen, 0.5, 2.0)) if stats else (None, None)
    weight, bias = (sample((c,), gen), sample((c,), gen)) if affine else (None, None)
    return Call(x, mean, var, weight, bias, **kw)


def fixed_cases(gen):
    yield "eval", case((4, 3, 5, 7), gen)
    yield "train_updates_stats", case((4, 3, 5, 7), gen, training=True)
    yield "train_no_stats", case((8, 6, 9), gen, stats=False, training=True)
    yield "no_affine", case((16, 5), gen, affine=False, training=True, momentum=0.3)
    yield "eval_no_affine", case((2, 7, 3, 3), gen, affine=False, eps=1e-3)
    yield "large_eps", case((3, 4, 6, 6), gen, training=True, eps=0.5, momentum=1.0)
    yield "volumetric", case((2, 3, 4, 5, 6), gen, training=True, momentum=0.0)
    const = torch.ones(4, 3, 2, 2) * torch.tensor([1.0, -2.0, 0.0]).view(1, 3, 1, 1)
    yield "constant_channels", Call(const, torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3), True)


def random_cases(gen, mode):
    yield "train_4d", case((32, 31, 17, 13), gen, mode, training=True)
    yield "train_2d", case((257, 129), gen, mode, training=True, momentum=0.05)
    yield "train_3d_no_affine", case((8, 61, 511), gen, mode, affine=False, training=True, eps=1e-3)
    yield "eval_4d", case((16, 64, 15, 17), gen, mode)


def perf_cases(gen):
    yield "train_16x32x128x128", case((16, 32, 128, 128), gen, training=True)
    yield "eval_32x32x640x128", case((32, 32, 640, 128), gen)
    yield "train_32x32x1024x128", case((32, 32, 1024, 128), gen, training=True)


TASK = Task(
    id="Normalization/batch_norm",
    entry="batch_norm",
    signature="batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, "
              "weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, "
              "momentum: float = 0.1, eps: float = 1e-5) -> Tensor",
    description="torch.nn.functional.batch_norm for input of shape (N, C, *) (rank 2 to 5), per channel c. "
                "training=False: y = (x − running_mean[c]) / √(running_var[c] + eps) · weight[c] + bias[c], and "
                "the running statistics are not touched. training=True: mean and biased variance of channel c are "
                "taken over all N·(spatial) elements; y = (x − mean) / √(var + eps) · weight + bias; and when the "
                "running statistics are given they are updated in place: running_mean ← (1 − momentum)·"
                "running_mean + momentum·mean, running_var ← (1 − momentum)·running_var + momentum·var_unbiased "
                "(variance with divisor count − 1). running_mean/running_var may be None only when training. "
                "weight None means 1, bias None means 0. Returns a new tensor of input's shape.",
    math=r"y = \frac{x - \mu_c}{\sqrt{\sigma_c^2 + \epsilon}}\,\gamma_c + \beta_c;\ "
         r"\hat\mu \leftarrow (1-m)\hat\mu + m\mu_c,\ \hat\sigma^2 \leftarrow (1-m)\hat\sigma^2 + m\,\sigma^2_{c,\mathrm{unbiased}}",
    difficulty=4,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input float32 (N, C, *); running_mean, running_var, weight, bias float32 (C,) or None; "
                             "output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-4), mutates=(1, 2),
                      notes="In training mode the running statistics (arguments 1 and 2) are updated in place and "
                            "compared. Statistics may be accumulated in any order (the atol allows for fp32 "
                            "reassociation over up to ~300K elements per channel); atomics are allowed."),
    flops=lambda call, out: 7.0 * out.numel(),
)
