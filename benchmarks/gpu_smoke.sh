#!/usr/bin/env bash
# One device call: the environment, what isolation the GPU host offers, a few reference solutions through
# `kbx eval` with perf, and the adversarial suite's GPU-relevant cases. Logs and results land under $OUT.
#   (on the device) bash benchmarks/gpu_smoke.sh      — wheels for missing packages in .whl/ are installed first
set -uo pipefail
. benchmarks/device_env.sh
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  python3 -c "import sys, torch, triton, numpy; print(sys.version.split()[0], torch.__version__, torch.version.cuda, triton.__version__, numpy.__version__)"
  whoami; nproc; unshare --version | head -1
  python3 -c "import ctypes.util; print('libseccomp:', ctypes.util.find_library('seccomp'))"
  python3 -c "from kernelbenchx.evaluator.isolation import probe; import json; print(json.dumps(probe().describe()))"
} 2>&1 | tee "$OUT/env.txt"
python3 - <<'PY'
import json, pathlib, os
ids = os.environ.get("SMOKE_TASKS", "Activation/gelu,Reduce/sum,MatrixMultiply/matmul,Random/rand,Math/softmax,LinearAlgebra/qr").split(",")
lines = [json.dumps({"task_id": t, "code": pathlib.Path(f"kernelbenchx/solutions/{t}.py").read_text()}) for t in ids
         if pathlib.Path(f"kernelbenchx/solutions/{t}.py").exists()]
pathlib.Path("/tmp/smoke.jsonl").write_text("\n".join(lines) + "\n")
PY
time timeout "${SOLUTIONS_S:-240}" python3 -m kernelbenchx eval /tmp/smoke.jsonl --out "$OUT/solutions" --task-set submitted --overwrite 2> "$OUT/solutions.err" | tail -12
python3 - "$OUT/solutions" <<'PY'
import sys
from kernelbenchx.evaluator.parent.rundir import read_results
for r in sorted(read_results(sys.argv[1]), key=lambda r: r.task_id):
    perf = r.stages.get("perf", {})
    cases = [(c["candidate"]["method"], round(c["speedup"].get("eager", 0), 2)) for c in perf.get("cases", [])]
    print(r.task_id, r.verdict.value, r.reason.value, r.message[:160], r.stages["compile"].get("isolation"), cases)
PY
KBX_GPU_FOCUS=1 timeout "${ADVERSARIAL_S:-240}" python3 -m tests.adversarial.suite "$OUT/adversarial" > "$OUT/adversarial.txt" 2>&1
tail -40 "$OUT/adversarial.txt"
