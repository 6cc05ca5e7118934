"""Fusion/fused_embedding_add_tanh: embedding lookup (optionally max-norm renormalized), add, tanh."""

import torch
import torch.nn.functional as F

from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, elementwise_flops, randint, sample


def reference(input_indices: torch.Tensor, weight: torch.Tensor, other: torch.Tensor, *, padding_idx=None,
              max_norm=None, norm_type: float = 2.0) -> torch.Tensor:
    # With max_norm, the referenced rows of `weight` are renormalized in place, as F.embedding does. Done here
    # explicitly: CUDA's embedding_renorm_ sums pow(w, p) without abs for p other than 1 and 2, so an odd p
    # gives NaN norms for some rows and leaves them unscaled (seen on an H200 for p = 3); the CPU's is right.
    if max_norm is not None:
        renorm_rows(weight, input_indices, max_norm, norm_type)
    embedded = F.embedding(input_indices, weight, padding_idx=padding_idx)
    return torch.tanh(embedded + other)


@torch.no_grad()
def renorm_rows(weight: torch.Tensor, indices: torch.Tensor, max_norm: float, norm_type: float) -> None:
    rows = indices.reshape(-1).long().unique()
    norms = torch.linalg.vector_norm(weight[rows], ord=norm_type, dim=1)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
    weight[rows] = weight[rows] * scale[:, None]


def fixed_cases(gen):
    idx = torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])
    yield "example", Call(idx, sample((10, 3), gen), sample((2, 4, 3), gen))
    yield "broadcast_vector", Call(randint((3, 5), gen, 0, 7), sample((7, 8), gen), sample((8,), gen))
    yield "padding_idx_keeps_row", Call(torch.tensor([0, 1, 0, 2]), sample((3, 4), gen), sample((4, 4), gen),
                                        padding_idx=0)
    yield "max_norm_duplicates", Call(torch.tensor([[1, 1, 3], [3, 0, 1]]), sample((5, 6), gen) * 3,
                                      sample((1, 1, 6), gen), max_norm=1.0)
    yield "max_norm_l1", Call(torch.tensor([2, 4, 2, 0]), sample((6, 5), gen), sample((4, 1), gen), max_norm=2.0,
                              norm_type=1.0)
    yield "int32_indices", Call(torch.tensor([3, 0, 3], dtype=torch.int32), sample((4, 2), gen), sample((3, 2), gen))
    yield "saturation", Call(torch.tensor([0, 1]), torch.tensor([[30.0, -30.0], [1e4, -1e4]]), torch.zeros(2))
    yield "max_norm_p3", Call(torch.tensor([[0, 2], [2, 3]]), sample((4, 7), gen) * 2, sample((7,), gen), max_norm=1.5,
                              norm_type=3.0)
    yield "empty_indices", Call(torch.zeros(0, dtype=torch.int64), sample((5, 4), gen), sample((4,), gen))


def random_cases(gen, mode):
    yield "tokens_64x50_d64", Call(randint((64, 50), gen, 0, 1000), sample((1000, 64), gen, mode),
                                   sample((64, 50, 64), gen, mode))
    yield "vector_other_padding_idx", Call(randint((300,), gen, 0, 5000), sample((5000, 128), gen, mode),
                                           sample((128,), gen, mode), padding_idx=3)
    yield "max_norm_16x33_d96", Call(randint((16, 33), gen, 0, 257), sample((257, 96), gen, mode) * 0.5,
                                     sample((16, 1, 96), gen, mode), max_norm=5.0)


def perf_cases(gen):
    yield "tokens_64x64_d64", Call(randint((64, 64), gen, 0, 1024), sample((1024, 64), gen), sample((64, 64, 64), gen))
    yield "tokens_512x512_d512", Call(randint((512, 512), gen, 0, 1024), sample((1024, 512), gen),
                                      sample((512, 512, 512), gen))
    yield "tokens_4096x256_vocab32000_d128", Call(randint((4096, 256), gen, 0, 32000), sample((32000, 128), gen),
                                                  sample((128,), gen))


TASK = Task(
    id="Fusion/fused_embedding_add_tanh",
    entry="fused_embedding_add_tanh",
    signature="fused_embedding_add_tanh(input_indices: Tensor, weight: Tensor, other: Tensor, *, "
              "padding_idx: int | None = None, max_norm: float | None = None, norm_type: float = 2.0) -> Tensor",
    description="input_indices is an integer tensor (int64, or int32) of any shape (*) with values in [0, V); "
                "weight is (V, D) float32; other is float32 broadcastable to (*, D). E = weight[input_indices] "
                "(shape (*, D)); returns tanh(E + other) as a new float32 tensor of the broadcast shape. "
                "padding_idx only affects gradients in torch: the forward result is unchanged (the row is looked "
                "up as is). When max_norm is given, BEFORE the lookup every distinct row of weight referenced by "
                "input_indices whose norm_type-norm (Σ|w|^p)^(1/p) exceeds max_norm is scaled IN PLACE by "
                "max_norm / (norm + 1e-7); weight's final values are compared. The upstream scale_grad_by_freq and "
                "sparse (gradient only) and `out=` arguments are dropped.",
    math=r"E = W[\mathbf{i}],\quad Y = \tanh(E + O)",
    difficulty=3,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(dtypes="input_indices int64 (or int32); weight and other float32; output float32",
                      tolerance=Tolerance(rtol=1e-5, atol=1e-5),
                      mutates=(1,),
                      notes="weight must be left unchanged unless max_norm is given; then only the referenced rows "
                            "above the norm limit change, each once."),
    flops=elementwise_flops(5),
    deviations=(
        Deviation(Kind.PERF, "20 sizes: (b, s) indices into a 1024-row table, D = 8 … 512, a full-size `other`, "
                  "up to 512×512 tokens with D = 512",
                  "64×64 tokens with D = 64 and 512×512 with D = 512 (two of upstream's rows, its largest included), "
                  "plus 4096×256 tokens into a 32000×128 table with a broadcast "
                  "row `other`", "two of upstream's sizes; the added case times a realistic vocabulary, where the "
                  "gather is not served from L2"),
    ),
)
