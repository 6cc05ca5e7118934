"""Random/rand: a tensor of uniform random numbers on [0, 1), reproducible from a seed tensor."""

import torch

from kernelbenchx.dataset import stochastic
from kernelbenchx.dataset.contract import Contract, Tolerance
from kernelbenchx.dataset.deviation import Deviation, Kind
from kernelbenchx.dataset.task import Call, Task, randint


def reference(*size, seed: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    # Seeded from a hash of all 64 bits: torch's CPU generator alone keys on the low 32 bits of its seed.
    gen = stochastic.generator(int(seed), seed.device)
    return torch.rand(*size, generator=gen, dtype=dtype, device=seed.device)


def timed_reference(*size, seed: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    # The fill alone, from the device's default generator: a CUDA graph advances it on every replay. Seeding a fresh
    # generator reads the seed back to the host, which no graph can hold: timed eagerly, the baseline measured the
    # host (Random/rand moved 1.44-1.66x between runs 55-57 on a 37-microsecond baseline, 2^16 elements).
    return torch.rand(*size, dtype=dtype, device=seed.device)


def check(call, output, expected, contract):
    return stochastic.uniform_reason(output, expected, call=call, seed_kwarg="seed")


def seed_tensor(gen):
    return randint((), gen, 0, 2**62)


def fixed_cases(gen):
    yield "vector", Call(4096, seed=torch.tensor(42))
    yield "matrix", Call(300, 257, seed=torch.tensor(43))
    yield "size_as_tuple", Call((64, 33), seed=torch.tensor(0))
    yield "float64", Call(12345, seed=torch.tensor(7), dtype=torch.float64)
    yield "float16_no_ones", Call(20000, seed=torch.tensor(123), dtype=torch.float16)
    # enough float16 samples that the Kolmogorov–Smirnov test sees a law 1% narrower than [0, 1)
    yield "float16_many", Call(1 << 18, seed=torch.tensor(321), dtype=torch.float16)
    yield "single", Call(1, seed=torch.tensor(44))
    yield "empty", Call(0, 5, seed=torch.tensor(1))
    yield "three_dims", Call(16, 31, 65, seed=torch.tensor(2**40 + 3), dtype=torch.float32)
    # Rows × columns over many blocks: rows, blocks and seeds must not repeat.
    yield "rng_structure", Call(32, 1024, seed=torch.tensor(0x2545F4914F6CDD1D))
    yield from stochastic.family("seed_family", lambda s: Call(32, 64, seed=torch.tensor(s)), 0x5DEECE66D, gen)


def random_cases(gen, mode):
    # `mode` changes nothing: the output does not depend on input values, only on the seed.
    yield "vector_2^18", Call(1 << 18, seed=seed_tensor(gen))
    yield "matrix_1000x129", Call(1000, 129, seed=seed_tensor(gen))
    yield "float64_3x50001", Call(3, 50001, seed=seed_tensor(gen), dtype=torch.float64)
    yield "float16_8x4099", Call((8, 4099), seed=seed_tensor(gen), dtype=torch.float16)
    if mode == "standard":
        yield from stochastic.family("seed_family", lambda s: Call(2048, seed=torch.tensor(s)),
                                     stochastic.draw_seed(gen), gen)


def perf_cases(gen):
    for i, n in enumerate((1 << 16, 1 << 24, 1 << 27)):
        yield f"n2^{n.bit_length() - 1}", Call(n, seed=torch.tensor(1000 + i, device=gen.device))


TASK = Task(
    id="Random/rand",
    entry="rand",
    signature="rand(*size: int, seed: Tensor, dtype: torch.dtype | None = None) -> Tensor",
    description="Returns a tensor of shape `size` filled with independent samples of the uniform distribution on "
                "[0, 1), like torch.rand. `size` is given as separate ints or as one tuple/list. dtype is "
                "float32 when None, else float16, float32 or float64. Randomness comes from `seed`, a 0-dim "
                "int64 tensor standing in for torch's `generator` argument (on the device, so a CUDA graph can "
                "replay with new seeds); the output is created on seed's device. The same seed must give "
                "bitwise the same output; different seeds must give different streams. Counter-based generators "
                "(Philox, e.g. tl.rand / tl.randint4x(seed, offsets)) fit: every element needs its own counter. "
                "The values need not match torch's stream. Values must stay strictly below 1 after rounding to "
                "the output dtype (a float32 sample rounded to float16 can reach 1.0), and float64 samples need "
                "more than float32 resolution (combine two 32-bit draws). torch's generator=, out=, layout=, "
                "device=, requires_grad= and pin_memory= arguments are not part of this task.",
    math=r"\mathrm{out}_i \overset{\text{iid}}{\sim} \mathcal{U}[0, 1)",
    difficulty=2,
    reference=reference,
    fixed_cases=fixed_cases,
    random_cases=random_cases,
    perf_cases=perf_cases,
    contract=Contract(seed_kwarg="seed", dtypes="seed int64 0-dim tensor; output float32 (or `dtype`) of shape `size`",
                      tolerance=Tolerance(rtol=0.0, atol=0.0), deterministic=True,
                      notes=stochastic.UNIFORM_CONTRACT + " The tolerance line above does not apply: values are "
                            "never compared with torch's own stream."),
    flops=lambda call, out: 0.0,
    check=check,
    timed_reference=timed_reference,
    deviations=(
        Deviation(Kind.SATISFIABLE, "rand(*size, generator=torch.Generator(...).manual_seed(k)) must equal torch's "
                  "own stream for that generator", "a 0-dim int64 `seed` tensor replaces `generator`; the output is "
                  "judged by its law (range, Kolmogorov–Smirnov, block balance, serial pairs, differences, "
                  "repeats, independence across seeds)", "no kernel can reproduce torch's random stream",
                  in_prompt=True),
        Deviation(Kind.COVERAGE, "float32 and float64 outputs", "float16, float32 and float64 outputs, 1-, 2- and "
                  "3-D sizes, and 2^18 float16 samples (a scale 1% off, U[0, 0.99), passes smaller cases)", "the signature's dtype argument takes every floating dtype a kernel can write"),
        Deviation(Kind.PERF, "16 sizes, 1-D 2^12 … 2^27 elements", "1-D 2^16, 2^24 and 2^27 elements",
                  "a subset of upstream's sizes from small to the largest; below 2^16 elements measures launch "
                  "overhead"),
        Deviation(Kind.PERF, "the timed call is the reference: a generator seeded for the call, then torch.rand",
                  "the baseline timed is torch.rand from the device's default generator, replayed as a CUDA graph "
                  "(Task.timed_reference)", "seeding reads the seed tensor back to the host, which no graph can "
                  "hold, so the baseline was timed eagerly and measured the host's load; the seeded reference "
                  "still judges the outputs"),
    ),
)
