#!/usr/bin/env bash
# Scaling over the GPUs of one host, measured within one device call (host instances differ by 20% and more):
# the kept solutions (EVERY=2: the half set, 89 tasks) on every GPU, then on GPU 0 alone with its 16 cores, through
# benchmarks/side_by_side.sh with the same seed. Each run comes back as $OUT/all/q0.tgz and $OUT/one/q0.tgz with its
# log; compare them with benchmarks/run_breakdown.py, guard_timeline.py and full_submission.py --compare.
# Runs 42 and 44 (docs/performance.md), on 2 H200s:
#   (on the device) OUT=$OUT bash benchmarks/scaling.sh     (side_by_side.sh installs the carried wheels)
set -uo pipefail
top=$OUT
gpus=$(nvidia-smi -L | wc -l)
all=$(seq -s, 0 $((gpus - 1)))
nvidia-smi -L; nproc
for spec in "all $all ${ALL_S:-240}" "one 0 ${ONE_S:-330}"; do
  set -- $spec
  mkdir -p "$top/$1"
  OUT=$top/$1 SEED=${SEED:-886863850761903279} SKIP_SMOKE=1 RUNS="$2" EVERY=${EVERY:-2} EVAL_S=$3 DRAIN_S=20 \
    WORKERS=${WORKERS:-20} PERF_TIMEOUT=60 bash benchmarks/side_by_side.sh > "/tmp/$1.stdout" 2>&1
  echo "== $1 (GPUs $2)"; grep -v "━" "$top/$1/log.txt" | tail -6
done
