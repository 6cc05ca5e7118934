#!/usr/bin/env bash
# One device call that checks changes made without a GPU: the adversarial suite's GPU cases, then a quarter of
# the kept solutions (EVERY=4: 45 tasks, every category) through benchmarks/side_by_side.sh on GPU 0. Everything
# comes back as two files ($OUT returns at most 8): $OUT/adversarial.txt and $OUT/check.tgz. Run 35 took 290 s.
#   (on the device) OUT=$OUT bash benchmarks/gpu_check.sh        — wheels in .whl/ are installed first
set -uo pipefail
top=$OUT
. benchmarks/device_env.sh
s=$(date +%s)
KBX_GPU_FOCUS=1 timeout "${ADV_S:-220}" python3 -m tests.adversarial.suite /tmp/adv > "$top/adversarial.txt" 2>&1
echo "adversarial rc=$? after $(( $(date +%s) - s )) s" | tee -a "$top/adversarial.txt"
grep -E "as expected|BAD" -A1 "$top/adversarial.txt" | head -20
mkdir -p /tmp/check
OUT=/tmp/check SEED=${SEED:-886863850761903279} SKIP_SMOKE=1 RUNS="0" EVERY=${EVERY:-4} EVAL_S=${EVAL_S:-140} DRAIN_S=15 \
  WORKERS=20 PERF_TIMEOUT=60 bash benchmarks/side_by_side.sh > /tmp/check/stdout.txt 2>&1
grep -v "━" /tmp/check/log.txt | tail -4
tar czf "$top/check.tgz" -C /tmp check
