#!/usr/bin/env bash
# One device call for issue 5/6 evidence: probe, GPU adversarial cases, the full-submission benchmark and
# golden baseline timings. Everything lands under $OUT (logs are small; results are summarized).
set -uo pipefail
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
timeout 100 python3 -m kernelbenchx hw probe --json > "$OUT/probe.json" 2>&1
KBX_GPU_FOCUS=1 timeout ${ADV_S:-120} python3 -m tests.adversarial.suite /tmp/adv > "$OUT/adversarial.txt" 2>&1
tail -20 "$OUT/adversarial.txt"
timeout ${BENCH_S:-200} python3 benchmarks/full_submission.py --out /tmp/bench --runs ${RUNS:-1} > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"; cp /tmp/bench/benchmark.json "$OUT/" 2>/dev/null
python3 - <<'PY' > "$OUT/bench_records.txt"
import json, glob
for path in sorted(glob.glob("/tmp/bench/run*/results.jsonl")):
    for line in open(path):
        r = json.loads(line)
        if r["candidate"]["method"] != "kept-solution":
            continue
        perf = r["stages"]["perf"]
        cases = perf.get("cases") or []
        fr = [round((c.get("roofline") or {}).get("roofline_fraction") or 0, 3) for c in cases]
        bfr = [round((c.get("baseline_roofline") or {}).get("roofline_fraction") or 0, 3) for c in cases]
        print(path.split("/")[-2], r["candidate"]["task_id"], r["verdict"], r["reason"]["code"],
              (perf.get("speedup_geomean") or {}).get("eager"), "frac", fr, "eager_frac", bfr, r["reason"]["message"][:160])
PY
cat "$OUT/bench_records.txt"
timeout ${GOLDEN_S:-240} python3 -m kernelbenchx golden --target ${TARGET:-h100} --out "$OUT/h100.json" > "$OUT/golden.log" 2>&1
tail -5 "$OUT/golden.log"; python3 -c "import json; d=json.load(open('$OUT/h100.json')); print(len(d['tasks']), 'tasks in golden')"
