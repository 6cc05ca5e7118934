#!/usr/bin/env bash
# One device call of release evidence: every kept reference solution through `kbx eval` with perf (timed,
# then tabulated into solutions.md), `kbx verify --level 4` of that run, and the adversarial suite's GPU cases.
# Results and logs land under $OUT in six files (the device returns at most eight): log.txt, run/ (results,
# run, summary, manifest) and solutions.md.     (on the device)  OUT=out bash benchmarks/gpu_evidence.sh
#   EVAL_S, VERIFY_S, ADV_S: time limits of the three parts (DRAIN_S: how long running candidates may finish after EVAL_S); SEED: the run's seed (repeatability runs);
#   ONLY_EVAL=1 stops after the eval; WORKERS (default 15); PERF_TIMEOUT (default 90 s, as kbx eval); SUBMISSION: a JSONL to evaluate instead of the solutions of this tree;
#   RESUME=--resume continues the run already in $OUT/run (copy it there first, with its SUBMISSION).
set -uo pipefail
. benchmarks/device_env.sh
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, torch.version.cuda, triton.__version__)"
  nproc
} 2>&1 | tee "$OUT/log.txt"
SUB=${SUBMISSION:-/tmp/solutions.jsonl}
[ -n "${SUBMISSION:-}" ] || python3 - <<'PY'
import json, pathlib
root = pathlib.Path("kernelbenchx/solutions")
lines = [json.dumps({"task_id": str(p.relative_to(root).with_suffix("")), "code": p.read_text(),
                     "model": "kbx-solutions", "method": "reference"})
         for p in sorted(root.glob("*/*.py")) if not p.name.startswith("_")]
pathlib.Path("/tmp/solutions.jsonl").write_text("\n".join(lines) + "\n")
print(len(lines), "solutions")
PY
start=$(date +%s)
# At EVAL_S the run is drained (SIGUSR2: nothing new starts, running candidates finish and are saved); after
# DRAIN_S more it is stopped (SIGTERM), losing only the candidates still running then.
python3 -m kernelbenchx eval "$SUB" --out "$OUT/run" --task-set all ${RESUME:---overwrite} \
  --perf-timeout "${PERF_TIMEOUT:-90}" --workers "${WORKERS:-15}" ${SEED:+--seed $SEED} > /tmp/eval.txt 2> /tmp/eval.err &
pid=$!
# The guard's output goes nowhere: an orphaned sleep holding a pipe open would keep a `| tail` caller waiting.
( sleep "${EVAL_S:-380}"; kill -USR2 $pid 2>/dev/null; sleep "${DRAIN_S:-90}"; kill -TERM $pid 2>/dev/null ) >/dev/null 2>&1 &
guard=$!
wait $pid; code=$?
pkill -P $guard 2>/dev/null; kill $guard 2>/dev/null
echo "eval exit $code after $(( $(date +%s) - start )) s" | tee -a "$OUT/log.txt"
{ tail -25 /tmp/eval.txt; grep -v "━" /tmp/eval.err | tail -20; } | tee -a "$OUT/log.txt"
python3 benchmarks/solutions_table.py "$OUT/run" > "$OUT/solutions.md"; sed -n 5,30p "$OUT/solutions.md"
[ -z "${ONLY_EVAL:-}" ] || exit 0  # a run continued by a later call (RESUME=--resume)
timeout "${VERIFY_S:-60}" python3 -m kernelbenchx verify "$OUT/run" --submission "$SUB" --level 4 --sample 8 --nonce "${NONCE:-gpu-evidence}" \
  > /tmp/verify.txt 2>&1; echo "verify exit $?" | tee -a "$OUT/log.txt"; tail -8 /tmp/verify.txt | tee -a "$OUT/log.txt"
KBX_GPU_FOCUS=1 timeout "${ADV_S:-90}" python3 -m tests.adversarial.suite /tmp/adv > /tmp/adversarial.txt 2>&1
tail -50 /tmp/adversarial.txt | tee -a "$OUT/log.txt"
