#!/usr/bin/env bash
# One device call that checks changes made without a GPU: the adversarial suite's GPU cases, then a quarter of
# the kept solutions (EVERY=4: 45 tasks, every category) through benchmarks/side_by_side.sh on GPU 0. Everything
# comes back as three files ($OUT returns at most 8): $OUT/adversarial.txt, $OUT/digest.txt and $OUT/check.tgz.
# Run 36 took 303 s (before the digest check).
#   (on the device) OUT=$OUT bash benchmarks/gpu_check.sh        — wheels in .whl/ are installed first
set -uo pipefail
top=$OUT
. benchmarks/device_env.sh
s=$(date +%s)
KBX_GPU_FOCUS=1 timeout "${ADV_S:-220}" python3 -m tests.adversarial.suite /tmp/adv > "$top/adversarial.txt" 2>&1
echo "adversarial rc=$? after $(( $(date +%s) - s )) s" | tee -a "$top/adversarial.txt"
grep -E "as expected|BAD" -A1 "$top/adversarial.txt" | head -20
# the GPU Merkle leaves (measure/digest.py) against hashlib, and their cost per GB against SHA-256 on the host
TRITON_INTERPRET=0 timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_digest.py 2>&1 | tail -2 | tee "$top/digest.txt"
TRITON_INTERPRET=0 timeout 120 python3 -c "
import hashlib, time, torch
from kernelbenchx.evaluator.measure import digest
x = torch.randint(0, 256, (1 << 30,), dtype=torch.uint8, device='cuda')
digest.leaves_gpu(x[: 1 << 20]); torch.cuda.synchronize()
t = time.perf_counter(); gpu = digest.leaves_gpu(x); t_gpu = time.perf_counter() - t
host = x.cpu(); t = time.perf_counter(); cpu = digest.leaves_cpu(memoryview(host.numpy())); t_cpu = time.perf_counter() - t
print(f'1 GiB: leaves equal {gpu == cpu}; GPU {t_gpu:.3f} s, host {t_cpu:.3f} s')
" 2>&1 | tail -3 | tee -a "$top/digest.txt"
mkdir -p /tmp/check
OUT=/tmp/check SEED=${SEED:-886863850761903279} SKIP_SMOKE=1 RUNS="0" EVERY=${EVERY:-4} EVAL_S=${EVAL_S:-140} DRAIN_S=15 \
  WORKERS=20 PERF_TIMEOUT=60 bash benchmarks/side_by_side.sh > /tmp/check/stdout.txt 2>&1
grep -v "━" /tmp/check/log.txt | tail -4
tar czf "$top/check.tgz" -C /tmp check
