#!/usr/bin/env bash
# One device call: environment, hardware probe, every kept solution through `kbx eval` on the GPU, and the
# adversarial suite with its GPU-only cases. Writes logs and results under $OUT (or ./gpu-out).
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)" | tee -a "$OUT/gpu.txt"
timeout 120 python3 -m kernelbenchx hw probe --json > "$OUT/probe.json" 2> "$OUT/probe.err"; cat "$OUT/probe.json"
python3 - <<'PY'
import json, pathlib
lines = [json.dumps({"task_id": f"{p.parent.name}/{p.stem}", "code": p.read_text()})
         for p in sorted(pathlib.Path("kernelbenchx/solutions").glob("*/*.py"))]
pathlib.Path("/tmp/solutions.jsonl").write_text("\n".join(lines) + "\n")
print(len(lines), "solutions")
PY
time timeout ${SOLUTIONS_S:-300} python3 -m kernelbenchx eval /tmp/solutions.jsonl --out "$OUT/solutions" --task-set submitted 2> "$OUT/solutions.err" | tail -25
time timeout ${ADVERSARIAL_S:-240} python3 -m tests.adversarial.suite "$OUT/adversarial" > "$OUT/adversarial.txt" 2>&1; tail -50 "$OUT/adversarial.txt"
