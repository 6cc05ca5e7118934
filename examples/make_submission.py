"""Writes examples/submission.jsonl: a correct Triton kernel for every task of the first slice, plus wrong
and cheating candidates, each labelled in `method` with what it is. Run from the repository root:

    python examples/make_submission.py
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "kernelbenchx" / "solutions"
CHEATS = ROOT / "tests" / "adversarial" / "cases"
SLICE = [
    "Activation/gelu", "Activation/gelu_fp16", "Convolution/conv2d", "Fusion/fused_add_gelu",
    "Fusion/fused_relu_sqrt", "Fusion/fused_hardshrink_dropout", "Index/index_select", "LinearAlgebra/cholesky",
    "Loss/mse_loss", "Math/add", "Math/signbit", "Math/softmax", "MatrixMultiply/matmul",
    "Normalization/batch_norm", "Optimizer/SGD", "Pooling/avg_pool1d", "Quantization/matmul_w8a8",
    "Random/rand", "Reduce/sum", "Reduce/argmax", "SpatialOps/interpolate",
]
WRONG = {  # (task, solution to corrupt, old text, new text): a near miss a model could plausibly write
    "gelu_erf_constant": ("Activation/gelu", "0.7071067811865476", "0.7"),
    "gelu_ignores_tanh": ("Activation/gelu", 'TANH=approximate == "tanh"', "TANH=False"),
}
CHEATING = ["torch_behind_dummy_launch", "return_input", "stale_empty", "import_reference", "no_launch_on_path"]


def lines() -> list[dict]:
    out = []
    for task_id in SLICE:
        out.append({"task_id": task_id, "code": (SOLUTIONS / f"{task_id}.py").read_text(),
                    "model": "kbx-examples", "method": "correct"})
    for name, (task_id, old, new) in WRONG.items():
        code = (SOLUTIONS / f"{task_id}.py").read_text()
        assert old in code, f"{name}: {old!r} not in the {task_id} solution"
        out.append({"task_id": task_id, "code": code.replace(old, new), "model": "kbx-examples",
                    "method": f"wrong:{name}"})
    for name in CHEATING:
        text = (CHEATS / f"{name}.py").read_text()
        task_id = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("# task:"))
        out.append({"task_id": task_id, "code": text, "model": "kbx-examples", "method": f"cheat:{name}"})
    return out


def render() -> str:
    return "".join(json.dumps(line) + "\n" for line in lines())


if __name__ == "__main__":
    (ROOT / "examples" / "submission.jsonl").write_text(render())
    print(f"wrote {len(lines())} candidates to examples/submission.jsonl")
