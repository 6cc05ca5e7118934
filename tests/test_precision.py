"""Tolerances separate precisions (dataset/precision.py): a task that admits TF32 accepts the reference computed
with TF32-rounded product operands and rejects bf16 operands on every seed; a task that does not admit TF32
rejects TF32 operands. The simulation rounds the operands of the reference's own matrix products.

A task that admits TF32 must also accept TF32 as Triton computes it on NVIDIA GPUs: tl.dot(...,
input_precision="tf32") feeds the fp32 operands to the tensor cores, which ignore their 13 low mantissa bits
(truncation toward zero, triton-lang/triton#4574), a biased error about 2.6 times the rounded one.

Strict-fp32 tasks whose tolerance is an fp32 accumulation bound are also recomputed with fp32 products summed in
the orders tests/test_tolerances.py admits (they must pass) and with low-precision sums or a dropped block (they
must fail somewhere)."""

import math

import pytest
import torch

from kernelbenchx.dataset.cases import build_cases, run_reference
from kernelbenchx.dataset.precision import BF16_BITS, FP32_BITS, PRODUCT_OPS, TF32_BITS, rounded_products
from kernelbenchx.dataset.registry import all_tasks, get_task
from kernelbenchx.dataset.task import Call
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


# Strict-fp32 tasks whose tolerance is an fp32 accumulation bound: recomputed the way a kernel would (fp32 products,
# sums in the orders tests/test_tolerances.py admits), they must pass; with bf16/fp16 sums or a dropped block, fail.


def _rows_dot(call, S):
    A, B, alpha, beta, C = call.args
    rows = alpha * S(A[:2, :, None] * B[None, :, :], 1) + beta * C[:2]
    return S(rows[0] * rows[1], 0)


def _abs_sum(call, S):
    A, C, alpha, beta = call.args
    return S((alpha * S(A[:, None, :] * A[None, :, :], -1) + beta * C).abs().reshape(-1), 0)


def _mv_dot(call, S):
    A, x, y, alpha, beta = call.args
    y_new = alpha * S(A * x, -1) + beta * y
    return S(y_new * x, 0), y_new


def _tensordot_rsqrt(call, S):
    a, b, dims = call.args
    if isinstance(dims, int):
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = [d % a.dim() for d in dims[0]], [d % b.dim() for d in dims[1]]
    fa, fb = [d for d in range(a.dim()) if d not in da], [d for d in range(b.dim()) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    am, bm = a.permute(*fa, *da).reshape(-1, k), b.permute(*db, *fb).reshape(k, -1)
    s = S(am[:, None, :] * bm.T[None, :, :], -1)
    return torch.rsqrt(s).reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])


STRICT_SIMULATORS = {"MatrixMultiply/matrix_multiply_and_row_dot": _rows_dot,
                     "MatrixMultiply/symmetric_mm_and_abs_sum": _abs_sum,
                     "MatrixMultiply/matrix_vector_dot": _mv_dot,
                     "MatrixMultiply/tensordot_rsqrt": _tensordot_rsqrt}


@pytest.mark.parametrize("task_id", sorted(STRICT_SIMULATORS))
def test_strict_bounds_admit_fp32_orders_and_reject_bugs(task_id):
    from tests.test_tolerances import BROKEN, Summer, honest_orders

    task, simulate = all_tasks()[task_id], STRICT_SIMULATORS[task_id]
    assert not task.contract.tf32 and task.contract.tolerance.scale == "bound"
    honest = [(name, Summer(last)) for name, last in honest_orders().items()]
    failures, caught = [], {name: False for name in BROKEN}
    with torch.no_grad():
        for case, call in build_cases(task, None) + build_cases(task, SEEDS[0]):
            expected = run_reference(task, call)
            for name, S in honest:
                reason = task.judge(call, simulate(call, S), expected)
                if reason:
                    failures.append(f"{case} [{name}]: {reason}")
            for name, last in BROKEN.items():
                caught[name] = caught[name] or bool(task.judge(call, simulate(call, Summer(last)), expected))
    assert not failures, failures[:5]
    assert all(caught.values()), f"not caught: {[n for n, c in caught.items() if not c]}"


def test_product_tasks_are_found():
    assert {"MatrixMultiply/matmul", "Convolution/conv2d", "MatrixMultiply/matrix_vector_dot",
            "MatrixMultiply/tensordot_rsqrt"} <= set(PRODUCT_TASKS)


def test_softplus_linear_accepts_either_branch_only_where_tf32_can_cross_the_threshold():
    # With β = 1/4 the output jumps by 1.25 at y = τ = 4; a TF32 product put y just under τ on the H200.
    task = get_task("Fusion/fused_softplus_linear")
    x, w = torch.tensor([[4.0 + 1e-5], [3.0], [4.5]]), torch.tensor([[1.0]])
    call = Call(x, w, None, 0.25, 4)
    expected = task.reference(*call.args)
    softplus = torch.nn.functional.softplus(x, beta=0.25)
    assert task.judge(call, torch.cat([softplus[:1], expected[1:]]), expected) is None  # next to τ: either
    assert task.judge(call, torch.cat([expected[:2], softplus[2:]]), expected) is not None  # 0.5 past τ: no
    assert task.judge(call, torch.cat([expected[:1], x[1:2], expected[2:]]), expected) is not None
