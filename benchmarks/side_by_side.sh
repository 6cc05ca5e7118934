#!/usr/bin/env bash
# Runs of every kept solution side by side on one multi-GPU host, one per GPU set in RUNS (default "0 1 2,3":
# two one-GPU runs and a two-GPU run; GPU g gets cores 16g..16g+15 and WORKERS candidate workers), all with the
# same SEED, after a 6-solution smoke on GPU 0 (SKIP_SMOKE=1 skips it). At EVAL_S the runs are drained, DRAIN_S
# later stopped. Each run comes back as $OUT/q$k.tgz with its guards' timeline (benchmarks/guard_timeline.py);
# the log has each run's CPU busy share and GPU utilization. RESUME=--resume continues /tmp/q/run$k. EVERY=2 (FIRST=0)
# submits every second kept solution only: a sample of every category, for pairs of runs that fit one device call.
# EXTRA adds options to each `kbx eval` (e.g. EXTRA="--compile-slots 8 --compile-threads 2"), EXTRA<k> to run k only
# (an A/B on one host: RUNS="0 1" EXTRA1=--no-fork-server).
# Runs 18 and 19 of benchmarks/runs/2026-11-27-h200 (docs/performance.md):
#   (on the device)  OUT=out SEED=886863850761903279 SKIP_SMOKE=1 EVAL_S=465 DRAIN_S=100 WORKERS=20 bash benchmarks/side_by_side.sh
set -uo pipefail
[ -n "${RESUME:-}" ] || { rm -rf /tmp/repo && cp -r . /tmp/repo; }
cd /tmp/repo
OUT=${OUT}; . benchmarks/device_env.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv; nproc; uname -r; grep -m1 "model name" /proc/cpuinfo
  # which logical CPUs share a physical core: a timing loop whose sibling compiles runs at half speed
  echo "siblings: $(cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list 2>/dev/null | sort -un | tr '\n' ' ')"; } | tee "$OUT/log.txt"
python3 - <<'PY'
import json, os, pathlib
root = pathlib.Path("kernelbenchx/solutions")
rows = lambda ids: "".join(json.dumps({"task_id": t, "code": (root / f"{t}.py").read_text(), "model": "kbx-solutions", "method": "reference"}) + "\n" for t in ids)
ids = [str(p.relative_to(root).with_suffix("")) for p in sorted(root.glob("*/*.py")) if not p.name.startswith("_")]
ids = ids[int(os.environ.get("FIRST", "0"))::int(os.environ.get("EVERY", "1"))]  # a sample of every category
pathlib.Path("/tmp/solutions.jsonl").write_text(rows(ids))
pathlib.Path("/tmp/smoke.jsonl").write_text(rows(["Activation/gelu", "LinearAlgebra/qr", "LinearAlgebra/svd", "Index/masked_select", "Fusion/fused_cross_entropy_softmax_layernorm", "MatrixMultiply/matmul"]))
PY
if [ -z "${RESUME:-}" ] && [ -z "${SKIP_SMOKE:-}" ]; then
  s=$(date +%s)
  CUDA_VISIBLE_DEVICES=0 timeout ${SMOKE_S:-150} python3 -m kernelbenchx eval /tmp/smoke.jsonl --out /tmp/smoke --task-set submitted --workers 6 --perf-timeout 90 --overwrite > /tmp/smoke.out 2>&1
  echo "smoke exit $? after $(( $(date +%s) - s )) s" | tee -a "$OUT/log.txt"
  python3 - <<'PY' | tee -a "$OUT/log.txt"
import json
for l in open("/tmp/smoke/results.jsonl"):
    r = json.loads(l); s = r["stages"]; p = s.get("perf", {}); c = s.get("correct", {})
    print(r["candidate"]["task_id"], r["verdict"], r["reason"]["message"][:150], "| cwarm", {k: c.get("warm", {}).get(k) for k in ("cases", "warmed", "compiles", "seconds")},
          "| offguard", [c.get(st, {}).get("compiles_off_guard") for st in ("stage1", "stage2")], "| pwarm", (p.get("warm") or {}).get("compiles"),
          "| perf s", p.get("seconds"), "judge", p.get("judge_s"), "sp", p.get("speedup_geomean"), "ref_wait", c.get("reference_wait_s"),
          "| process", s.get("compile", {}).get("process"), s.get("compile", {}).get("boot"))
PY
  cp /tmp/smoke/results.jsonl "$OUT/smoke.jsonl"
  [ "$(grep -c '"verdict": "correct"' /tmp/smoke/results.jsonl)" = 6 ] || { echo "smoke not all correct: stop" | tee -a "$OUT/log.txt"; tail -30 /tmp/smoke.out >> "$OUT/log.txt"; exit 1; }
  # REQUIRE_PROCESS=forked: stop unless the smoke's processes were forked (the zygote's problem is in its log)
  [ -z "${REQUIRE_PROCESS:-}" ] || grep -q "\"process\": \"$REQUIRE_PROCESS\"" /tmp/smoke/results.jsonl || { echo "smoke processes not $REQUIRE_PROCESS: stop" | tee -a "$OUT/log.txt"; grep -A12 "kbx:" /tmp/smoke.out >> "$OUT/log.txt"; exit 1; }
fi
mkdir -p /tmp/q; pids=(); k=0
cat /proc/stat > /tmp/q/stat0  # CPU busy per run's cores, and GPU utilization each second, for the log
nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 1000 > /tmp/q/gpu_util.txt 2>/dev/null &
smi=$!
# clocks, power and the driver's clock-event reasons every 200 ms, with the wall/monotonic pair that places the guard
# timeline's events on them (benchmarks/gpu_clocks.py): do timings that differ between runs meet a lower clock?
python3 -c "import datetime, time; print(datetime.datetime.now().strftime('%Y/%m/%d %H:%M:%S.%f'), time.perf_counter())" > /tmp/q/clock_anchor.txt
fields=clocks_event_reasons.active; nvidia-smi --query-gpu=$fields --format=csv >/dev/null 2>&1 || fields=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,uuid,clocks.sm,clocks.mem,power.draw,temperature.gpu,$fields --format=csv,noheader,nounits -lms 200 > /tmp/q/gpu_clocks.csv 2>/dev/null &
clocks=$!
for set in ${RUNS:-0 1 2,3}; do  # one run per GPU set; 16 cores and WORKERS (default 15) per GPU
  n=$(echo $set | tr ',' '\n' | wc -l); first=${set%%,*}
  KBX_GUARD_LOG=/tmp/q/guard$k.jsonl KBX_USAGE_LOG=/tmp/q/usage$k.json CUDA_VISIBLE_DEVICES=$set taskset -c $((16*first))-$((16*(first+n)-1)) python3 -m kernelbenchx eval /tmp/solutions.jsonl --out /tmp/q/run$k --task-set all ${RESUME:---overwrite} \
    --perf-timeout "${PERF_TIMEOUT:-60}" --workers $(( ${WORKERS:-15} * n )) --seed "${SEED}" ${EXTRA:-} $(v=EXTRA$k; echo ${!v:-}) > /tmp/q/eval$k.txt 2> /tmp/q/eval$k.err &
  pids+=($!); echo "run$k: GPUs $set, cores $((16*first))-$((16*(first+n)-1)) $(v=EXTRA$k; echo ${!v:-})" | tee -a "$OUT/log.txt"; k=$((k+1))
done
start=$(date +%s)
( sleep "${EVAL_S:-450}"; for p in "${pids[@]}"; do kill -USR2 $p 2>/dev/null; done; sleep "${DRAIN_S:-100}"; for p in "${pids[@]}"; do kill -TERM $p 2>/dev/null; done ) >/dev/null 2>&1 &
guard=$!
for g in "${!pids[@]}"; do wait ${pids[$g]}; echo "run$g exit $? after $(( $(date +%s) - start )) s, $(wc -l < /tmp/q/run$g/results.jsonl) records" | tee -a "$OUT/log.txt"; done
pkill -P $guard 2>/dev/null; kill $guard 2>/dev/null; kill $smi $clocks 2>/dev/null
cat /proc/stat > /tmp/q/stat1
RUNS="${RUNS:-0 1 2,3}" python3 - <<'PY' | tee -a "$OUT/log.txt"
import json, os
def busy(path):
    rows = {}
    for line in open(path):
        if line.startswith("cpu") and line[3].isdigit():
            name, *v = line.split(); v = list(map(int, v[:8]))
            rows[int(name[3:])] = (sum(v) - v[3] - v[4], sum(v))
    return rows
a, b = busy("/tmp/q/stat0"), busy("/tmp/q/stat1")
util = {}
for line in open("/tmp/q/gpu_util.txt"):
    gpu, pct = (x.strip() for x in line.split(","))
    util.setdefault(int(gpu), []).append(float(pct))
for k, gpus in enumerate(os.environ["RUNS"].split()):
    ids = [int(g) for g in gpus.split(",")]
    cores = range(16 * ids[0], 16 * (ids[-1] + 1))
    used = sum(b[c][0] - a[c][0] for c in cores) / max(1, sum(b[c][1] - a[c][1] for c in cores))
    gpu = [round(sum(util.get(g, [0])) / max(1, len(util.get(g, []))), 1) for g in ids]
    spent = json.load(open(f"/tmp/q/usage{k}.json")) if os.path.exists(f"/tmp/q/usage{k}.json") else {}
    print(f"run{k}: CPU busy {used:.0%} of cores {cores.start}-{cores.stop - 1}; GPU utilization (mean %) {gpu}; "
          f"CPU-s of the parent {spent.get('parent_cpu_s')}, of its children {spent.get('children_cpu_s')}")
PY
for g in "${!pids[@]}"; do tail -4 /tmp/q/eval$g.txt >> "$OUT/log.txt"; grep -v "━" /tmp/q/eval$g.err | tail -5 >> "$OUT/log.txt"; tar czf "$OUT/q$g.tgz" -C /tmp/q run$g $(cd /tmp/q && ls guard$g.jsonl usage$g.json gpu_clocks.csv clock_anchor.txt 2>/dev/null); done
