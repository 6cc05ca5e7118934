"""Quantization/bmm_w8a8: batched matmul with per-row and per-column int8 operands, int32 accumulation."""

import torch

from kernelbenchx.dataset import quantized
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.quantized import Limits, activation_sample
from kernelbenchx.dataset.task import Call, Task, sample

# Measured with kernel-like variants of the pipeline and 100 stage-2 seeds: atol is twice the largest
# elementwise effect of rounding flips, LIMITS twice the worst faithful error against the float result.
TOLERANCE = Tolerance(rtol=0.0, atol=0.1, scale="rms")
LIMITS = Limits(rel_rmse=0.044, cosine=0.99952, rel_l1=0.044)
# Upstream judged against the float op with these absolute thresholds (dataset/quantized.py: upstream_judging).
UPSTREAM_THRESHOLDS = "cosine ≥ 0.95, relative L1 ≤ 0.05, RMSE ≤ 0.1"
UNMET = ("RMSE 0.16 on upstream's outlier case (2, 32, 64, 48)")


def reference(input: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return quantized.bmm_w8a8(input, mat2)


def unquantized(input: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return torch.bmm(input, mat2)


def check(call, output, expected, contract):
    return quantized.judge(output, expected, call.invoke(unquantized), contract.tolerance, LIMITS)


def fixed_cases(gen):
    x, y = sample((3, 16, 40), gen), sample((3, 40, 24), gen)
    x[1], y[2, :, 5], x[0, :, 9] = 0.0, 0.0, 0.0
    yield "zero_batch_column_and_k", Call(x, y)
    yield "one_by_one", Call(torch.tensor([[[2.5]], [[-0.1]]]), torch.tensor([[[-4.0]], [[0.3]]]))
    scales = torch.logspace(-3, 3, 4).reshape(4, 1, 1)
    yield "extreme_batch_scales", Call(sample((4, 8, 32), gen) * scales, sample((4, 32, 12), gen) / scales)
    yield "negative_zero", Call(torch.full((2, 5, 7), -0.0), sample((2, 7, 6), gen))
    x = torch.randint(-127, 128, (2, 9, 20), generator=gen).float()
    y = torch.randint(-127, 128, (2, 20, 11), generator=gen).float()
    x[..., 0], y[:, 0] = -127.0, 127.0  # every row and column max is 127: scales are 1, quantization is exact
    yield "small_integers_exact", Call(x, y)
    yield "odd_sizes", Call(sample((5, 33, 65), gen), sample((5, 65, 17), gen))


def random_cases(gen, mode):
    yield "b2_m32_k64_n48", Call(activation_sample((2, 32, 64), gen, mode), activation_sample((2, 64, 48), gen, mode))
    yield "b4_m64_k128_n96", Call(activation_sample((4, 64, 128), gen, mode),
                                  activation_sample((4, 128, 96), gen, mode))
    yield "b3_m57_k200_n75", Call(activation_sample((3, 57, 200), gen, mode),
                                  activation_sample((3, 200, 75), gen, mode))


def perf_cases(gen):
    for b, m, k, n in ((2, 64, 128, 256), (4, 128, 256, 512), (8, 256, 512, 1024), (16, 512, 1024, 2048)):
        yield f"b{b}_m{m}_k{k}_n{n}", Call(sample((b, m, k), gen).clamp(-10, 10), sample((b, k, n), gen).clamp(-10, 10))


def flops(call, out):
    b, m, k = call.args[0].shape
    return 2.0 * b * m * k * call.args[1].shape[-1]


TASK = Task(
    id="Quantization/bmm_w8a8",
    entry="bmm_w8a8",
    signature="bmm_w8a8(input: Tensor, mat2: Tensor) -> Tensor",
    description="W8A8 batched matrix multiplication of input (B, M, K) by mat2 (B, K, N), both float32, returning "
                "float32 (B, M, N). The result is defined by this exact quantization pipeline "
                "(no quantized PyTorch APIs); the unquantized torch.bmm(input, mat2) is only the accuracy "
                "yardstick:\n"
                "1. input, one scale per row (b, m): s_x[b, m] = max_k |input[b, m, k]| / 127 (fp32); "
                "q_x = clamp(round(input / s_x[b, m]), -127, 127) as int8, rounding half to even.\n"
                "2. mat2, one scale per column (b, n): s_y[b, n] = max_k |mat2[b, k, n]| / 127; "
                "q_y = clamp(round(mat2 / s_y[b, n]), -127, 127) as int8, rounding half to even.\n"
                "   A row or column whose max is 0 quantizes to all zeros.\n"
                "3. acc[b, m, n] = Σ_k q_x[b, m, k]·q_y[b, k, n], accumulated exactly in int32.\n"
                "4. out[b, m, n] = float(acc[b, m, n]) · s_x[b, m] · s_y[b, n] in fp32.",
    math=r"Y_{bmn}=s_x[b,m]\,s_y[b,n]\sum_k \mathrm{rne}(X_{bmk}/s_x[b,m])\,\mathrm{rne}(M_{bkn}/s_y[b,n]),"
         r"\ s=\max|\cdot|/127",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input (B, M, K) and mat2 (B, K, N) float32; output float32 (B, M, N)",
                      tolerance=TOLERANCE, accumulation="int32 (exact integer dot products)",
                      notes=quantized.describe_rules(TOLERANCE, LIMITS)),
    flops=flops,
    unit="int8",
    check=check,
    deviations=quantized.upstream_judging(UPSTREAM_THRESHOLDS, UNMET),
)
