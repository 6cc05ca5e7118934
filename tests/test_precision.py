"""Tolerances separate precisions (dataset/precision.py): a task that admits TF32 accepts the reference computed
with TF32-rounded product operands and rejects bf16 operands on every seed; a task that does not admit TF32
rejects TF32 operands. The simulation rounds the operands of the reference's own matrix products.

A task that admits TF32 must also accept TF32 as Triton computes it on NVIDIA GPUs: tl.dot(...,
input_precision="tf32") feeds the fp32 operands to the tensor cores, which ignore their 13 low mantissa bits
(truncation toward zero, triton-lang/triton#4574), a biased error about 2.6 times the rounded one."""

import pytest
import torch

from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.precision import BF16_BITS, FP32_BITS, PRODUCT_OPS, TF32_BITS, rounded_products
from kernelbenchx.dataset.registry import all_tasks
from torch.utils._python_dispatch import TorchDispatchMode

SEEDS = (1, 2, 3)


def truncate_mantissa(x, bits):
    """`x` with its float32 mantissa cut to `bits` explicit bits (toward zero), as the tensor cores read TF32."""
    if bits >= FP32_BITS or not x.is_floating_point():
        return x
    i = x.float().contiguous().view(torch.int32)
    return (i & ~((1 << (FP32_BITS - bits)) - 1)).view(torch.float32).reshape(x.shape).to(x.dtype)


class truncated_products(TorchDispatchMode):
    """Like precision.rounded_products, with truncated instead of rounded operands."""

    def __init__(self, bits):
        super().__init__()
        self.bits = bits

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in PRODUCT_OPS:
            args = tuple(truncate_mantissa(a, self.bits) if isinstance(a, torch.Tensor) and a.is_floating_point()
                         and a.dtype in (torch.float32, torch.float64) else a for a in args)
        return func(*args, **(kwargs or {}))


class ProductRecorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.fp32_products = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in PRODUCT_OPS and any(
                isinstance(a, torch.Tensor) and a.dtype == torch.float32 for a in args):
            self.fp32_products += 1
        return func(*args, **(kwargs or {}))


def fp32_product_tasks():
    out = []
    for task in all_tasks().values():
        if task.check is not None:
            continue
        recorder = ProductRecorder()
        with recorder:
            for _, call in build_cases(task, None)[:2]:
                run_reference(task, call)
        if recorder.fp32_products:
            out.append(task.id)
    return out


PRODUCT_TASKS = fp32_product_tasks()


def failures(task, bits, seed, mode=rounded_products):
    """Cases of stage 1 and of stage 2 for `seed` that the reference with `bits`-bit product operands fails."""
    bad = []
    for name, call in build_cases(task, None) + build_cases(task, seed):
        expected = run_reference(task, call)
        with mode(bits):
            degraded = run_reference(task, call)
        if task.judge(call, degraded, expected):
            bad.append(name)
    return bad


@pytest.mark.parametrize("task_id", PRODUCT_TASKS)
def test_tolerance_separates_precisions(task_id):
    task = all_tasks()[task_id]
    if task.contract.tf32:
        for seed in SEEDS:
            assert failures(task, TF32_BITS, seed) == [], f"TF32 products fail (seed {seed})"
            assert failures(task, BF16_BITS, seed), f"bf16 products pass every case (seed {seed})"
    else:
        for seed in SEEDS:
            assert failures(task, TF32_BITS, seed), f"TF32 products pass a strict-fp32 contract (seed {seed})"


TF32_TASKS = [t for t in PRODUCT_TASKS if all_tasks()[t].contract.tf32]


@pytest.mark.parametrize("task_id", TF32_TASKS)
def test_truncated_tf32_passes(task_id):
    """Triton's own TF32 (truncated operands) meets every contract that admits TF32 (one seed: the bias is
    systematic, not a matter of the draw)."""
    assert failures(all_tasks()[task_id], TF32_BITS, SEEDS[0], truncated_products) == []


def test_product_tasks_are_found():
    assert {"MatrixMultiply/matmul", "Convolution/conv2d", "MatrixMultiply/matrix_vector_dot",
            "MatrixMultiply/tensordot_rsqrt"} <= set(PRODUCT_TASKS)
