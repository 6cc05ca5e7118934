#!/usr/bin/env bash
# Container checks with a real Docker engine (called by .ci/run; run it by hand the same way, as root):
#   1. Debian's docker.io and mmdebstrap where missing; dockerd started by hand (containers/dockerd.sh);
#   2. the Debian base made without a registry (containers/base.sh: mmdebstrap → docker import, the root
#      filesystem cached under ${KBX_CACHE:-~/.cache/kbx});
#   3. kbx-eval:cpu built by `kbx image build` (BuildKit; the host CA bundle as a build secret);
#   4. the example submission evaluated on the host and with `docker run ... kbx-eval:cpu` under one fixed
#      seed, and their verdicts compared record by record (containers/compare_runs.py); the image's run
#      verified by `kbx verify` (L0-L2);
#   5. tests/test_container.py again, now with the engine and the image (`kbx eval --image` through the SDK);
#   6. the daemon stopped (by its PID) if this script started it.
# CI evaluates a subset of examples/submission.jsonl (CI_TASKS below: one honest candidate and every cheat of
# Activation/gelu, plus three more tasks; the whole file takes tens of minutes on 2 cores under the
# interpreter, twice). The whole example: KBX_CI_FULL=1 containers/ci.sh
# GPU images (about 5 GB) are built on demand, not here: kbx image build --target h100 --base "$(containers/base.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."
began=$(date +%s)
py=$PWD/.venv/bin/python
kbx=$PWD/.venv/bin/kbx
CI_TASKS="Activation/gelu Math/add Reduce/sum Math/signbit"
SEED=20261126
stamp() { echo "== containers: $* ($(($(date +%s) - began)) s)"; }

containers/dockerd.sh install
containers/dockerd.sh start
trap 'containers/dockerd.sh stop' EXIT

stamp "base image"
base=$(containers/base.sh)
stamp "kbx-eval:cpu on $base"
# This project's machines keep the CPU torch wheel in /opt/wheels (pip finds it through PIP_FIND_LINKS) and
# reach PyPI through an HTTPS-intercepting proxy whose CA is in the system bundle.
[ -d /opt/wheels ] && export KBX_WHEELS=${KBX_WHEELS:-/opt/wheels}
ca=${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}
"$kbx" image build --target cpu --base "$base" $([ -f "$ca" ] && echo --ca-file "$ca")
docker image ls kbx-eval:cpu

work=$(mktemp -d "${TMPDIR:-/tmp}/kbx-ci-containers.XXXXXX")
chmod 755 "$work"
if [ "${KBX_CI_FULL:-0}" = 1 ]; then
  cp examples/submission.jsonl "$work/submission.jsonl"
else
  "$py" - "$work/submission.jsonl" $CI_TASKS <<'PY'
import json, sys
keep = set(sys.argv[2:])
lines = [l for l in open("examples/submission.jsonl") if json.loads(l)["task_id"] in keep]
open(sys.argv[1], "w").writelines(lines)
print(f"{len(lines)} candidates of {len(keep)} tasks from examples/submission.jsonl")
PY
fi

stamp "the submission on the host"
nice "$kbx" eval "$work/submission.jsonl" --out "$work/host" --seed "$SEED" >"$work/host.log" 2>&1 \
  || { tail -30 "$work/host.log"; exit 1; }
stamp "the submission in kbx-eval:cpu"
image_id=$(docker image inspect --format '{{.Id}}' kbx-eval:cpu)
docker run --rm --init --network none --user "$(id -u):$(id -g)" -e KBX_IMAGE_ID="$image_id" \
  -v "$work:/work" kbx-eval:cpu /work/submission.jsonl --seed "$SEED" >"$work/image.log" 2>&1 \
  || { tail -30 "$work/image.log"; exit 1; }
tail -3 "$work/image.log"
"$py" containers/compare_runs.py "$work/host" "$work/results"
"$kbx" verify "$work/results" --submission "$work/submission.jsonl" --level 2

stamp "tests/test_container.py with the engine"
KBX_TEST_IMAGE=kbx-eval:cpu "$py" -m pytest -q -p no:cacheprovider tests/test_container.py
rm -rf "$work"
stamp "done"
