# Sourced by the device scripts: OUT made, wheels carried in .whl/ installed for this session (the GPU image
# lacks some of kbx's dependencies), kbx importable from the checkout, unbuffered Python.
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
