#!/usr/bin/env bash
# One device call of GPU evidence: the full-submission benchmark (one run), golden timings for GOLDEN_TASKS
# (all tasks when empty), and the adversarial suite's GPU-only cases. Logs and results land under $OUT.
#   SUBMISSION=bench-sub.jsonl GOLDEN_TASKS=Fusion/x,LinearAlgebra/y OUT=out bash benchmarks/gpu_session.sh
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
if [ -n "${SUBMISSION:-}" ]; then
  timeout "${BENCH_S:-420}" python3 benchmarks/full_submission.py --out /tmp/bench --submission "$SUBMISSION" \
    --runs 1 2>&1 | grep -v Warning | tee "$OUT/bench.txt"
  cp /tmp/bench/run0/results.jsonl "$OUT/bench-results.jsonl"; cp /tmp/bench/benchmark.json "$OUT/" 2>/dev/null
fi
tasks=${GOLDEN_TASKS:+--tasks $GOLDEN_TASKS}
timeout "${GOLDEN_S:-240}" python3 -m kernelbenchx golden --target "${TARGET:-h100}" --out "$OUT/golden.json" $tasks \
  > "$OUT/golden.log" 2>&1; tail -3 "$OUT/golden.log"
KBX_GPU_FOCUS=1 timeout "${ADV_S:-120}" python3 -m tests.adversarial.suite /tmp/adv > "$OUT/adversarial.txt" 2>&1
tail -15 "$OUT/adversarial.txt"
