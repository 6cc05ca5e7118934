"""Loss/kl_div: pointwise KL divergence between log-probabilities and a target distribution, then reduced."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.task import Call, Task, input_flops, sample


def reference(input: torch.Tensor, target: torch.Tensor, reduction: str = "batchmean",
              log_target: bool = False) -> torch.Tensor:
    if reduction == "mean":  # spelled out: torch warns that its 'mean' may change meaning in a later release
        return F.kl_div(input, target, reduction="none", log_target=log_target).mean()
    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def log_probs(shape, gen, mode="standard"):
    return torch.log_softmax(sample(shape, gen, mode), dim=-1)


def probs(shape, gen, mode="standard"):
    return torch.softmax(sample(shape, gen, mode), dim=-1)


def fixed_cases(gen):
    yield "example", Call(log_probs((2, 5), gen), probs((2, 5), gen))
    yield "same_distribution", Call(torch.full((3, 7), 1 / 7).log(), torch.full((3, 7), 1 / 7), "sum")
    zero_target = torch.tensor([[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0]])
    yield "zero_target_none", Call(log_probs((2, 4), gen), zero_target, "none")
    yield "zero_target_batchmean", Call(log_probs((2, 4), gen), zero_target)
    yield "log_target_sum", Call(log_probs((5, 9), gen), log_probs((5, 9), gen), "sum", True)
    yield "log_target_none", Call(log_probs((4, 6), gen), log_probs((4, 6), gen), reduction="none", log_target=True)
    yield "mean_over_elements", Call(log_probs((6, 10), gen), probs((6, 10), gen), "mean")
    yield "3d_batchmean", Call(log_probs((3, 4, 8), gen), probs((3, 4, 8), gen))
    yield "1d_batchmean", Call(log_probs((11,), gen), probs((11,), gen))


def random_cases(gen, mode):
    yield "batchmean", Call(log_probs((256, 1024), gen, mode), probs((256, 1024), gen, mode))
    yield "sum_log_target", Call(log_probs((129, 257), gen, mode), log_probs((129, 257), gen, mode), "sum", True)
    yield "none", Call(log_probs((4, 31, 127), gen, mode), probs((4, 31, 127), gen, mode), reduction="none")


def perf_cases(gen):
    yield "256x1024", Call(log_probs((256, 1024), gen), probs((256, 1024), gen))
    yield "8192x1024", Call(log_probs((8192, 1024), gen), probs((8192, 1024), gen))
    yield "4096x32000", Call(log_probs((4096, 32000), gen), probs((4096, 32000), gen))
    yield "4096x32000_log_target", Call(log_probs((4096, 32000), gen), log_probs((4096, 32000), gen),
                                        log_target=True)


TASK = Task(
    id="Loss/kl_div",
    entry="kl_div",
    signature="kl_div(input: Tensor, target: Tensor, reduction: str = 'batchmean', log_target: bool = False) -> Tensor",
    description="Kullback-Leibler divergence loss. `input` holds log-probabilities and `target` has the same shape. "
                "Pointwise, with log_target=False: L = target·(log(target) − input), where target·log(target) is "
                "taken as 0 when target == 0 (so zero-probability targets contribute exactly 0); with "
                "log_target=True the target is given in log space: L = exp(target)·(target − input). "
                "reduction='none' returns L (input's shape); 'sum' returns ΣL; 'mean' returns ΣL divided by the "
                "number of elements; 'batchmean' (the default here) returns ΣL divided by input.shape[0] (the "
                "batch size; for a 1-D input that is its length). Reductions give 0-d tensors; output dtype = "
                "input dtype.",
    math=r"L_i = y_i(\log y_i - x_i),\quad \text{batchmean} = \frac{1}{B}\sum_i L_i",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input and target float32, same shape; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      notes="Summation order is free; the tolerance allows for fp32 reassociation."),
    flops=input_flops(4),
)
