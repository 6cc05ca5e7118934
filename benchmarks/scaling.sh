#!/usr/bin/env bash
# Scaling over the GPUs of one host, measured within one device call (host instances differ by 20% and more):
# the kept solutions (EVERY=2: the half set, 89 tasks) on every GPU, then on GPU 0 alone with its 16 cores, through
# benchmarks/side_by_side.sh with the same seed. Each run comes back as $OUT/<name>/q0.tgz with its log; compare
# them with benchmarks/run_breakdown.py, guard_timeline.py and full_submission.py --compare.
# SETS overrides the runs, one after another, as name:GPUS:SECONDS[:OPTION] (SECONDS: when the run is drained;
# OPTION: one more `kbx eval` option for that run). An A/B on one host:
#   (on the device) OUT=$OUT EVERY=2 SETS="base:0,1:140 judges:0,1:140:--judge-processes=4" bash benchmarks/scaling.sh
# (run 74; contract judges are the default since). Next, device opens in turns (then benchmarks/startup.py on each):
#   (on the device) OUT=$OUT EVERY=2 SETS="base:0,1:150 opens4:0,1:150:--device-opens=4" bash benchmarks/scaling.sh
# The whole set on a 4-GPU host in two calls of at most 600 s (one H200 alone took 298 s, two 215 s: runs 68, 70):
#   (on the device) OUT=$OUT EVERY=1 SETS="four:0,1,2,3:200 two:0,1:260" bash benchmarks/scaling.sh
#   (on the device) OUT=$OUT EVERY=1 SETS="one:0:360" bash benchmarks/scaling.sh
# Runs 42 and 44, on 2 H200s:
#   (on the device) OUT=$OUT bash benchmarks/scaling.sh     (side_by_side.sh installs the carried wheels)
set -uo pipefail
top=$OUT
gpus=$(nvidia-smi -L | wc -l)
all=$(seq -s, 0 $((gpus - 1)))
nvidia-smi -L; nproc
for spec in ${SETS:-all:$all:${ALL_S:-240} one:0:${ONE_S:-330}}; do
  IFS=: read -r name set seconds option <<< "$spec"
  mkdir -p "$top/$name"
  EXTRA="${EXTRA:-} ${option:-}" OUT=$top/$name SEED=${SEED:-886863850761903279} SKIP_SMOKE=1 RUNS="$set" EVERY=${EVERY:-2} EVAL_S=$seconds \
    DRAIN_S=20 WORKERS=${WORKERS:-20} PERF_TIMEOUT=60 bash benchmarks/side_by_side.sh > "/tmp/$name.stdout" 2>&1
  echo "== $name (GPUs $set)"; grep -v "━" "$top/$name/log.txt" | tail -6
done
