#!/usr/bin/env bash
# pip install . into a fresh virtual environment (seeing the system's packages), then, from
# outside the source tree: import solder, the README's Python example on host tensors, the
# installed CLI and stubs, and the Python tests against the installed package (no PYTHONPATH).
# After scripts/setup.sh the build (build-pip/) is mostly ccache hits.
#   VENV=/tmp/solder-pip ./scripts/pip_check.sh     (INSTALL=0: check an existing install)
#   OFFLINE=1 ./scripts/pip_check.sh   (no network: scikit-build-core and nanobind already installed,
#                                       e.g. the GPU machine; also runs the README's GPU example)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${VENV:-$ROOT/build-pip/venv}
PY=$VENV/bin/python
if [ "${INSTALL:-1}" = 1 ]; then
  probe=$(mktemp -d)
  PIP_ARGS=()
  if [ "${OFFLINE:-0}" = 1 ]; then
    PIP_ARGS=(--no-build-isolation --no-deps)
  elif ! python3 -m pip download -q --no-deps -d "$probe" scikit-build-core nanobind >/dev/null 2>&1; then
    echo "pip_check: skipped (pip cannot fetch the build requirements: no network?)"
    exit 0
  fi
  rm -rf "$probe" "$VENV"
  python3 -m venv --system-site-packages "$VENV"
  # torch for the backend's tests: the one scripts/setup.sh put in build/pyenv, where there is one.
  if [ -x build/pyenv/bin/python ] && build/pyenv/bin/python -c "import torch" 2>/dev/null; then
    site=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    build/pyenv/bin/python -c "import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))" \
      >"$site/build-pyenv.pth"
  fi
  # The compiler build/ was configured with, so that ccache serves build/'s objects.
  if [ -f build/CMakeCache.txt ]; then
    CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build/CMakeCache.txt)
    export CXX
  fi
  t0=$(date +%s)
  "$PY" -m pip install -q "${PIP_ARGS[@]}" "$ROOT" 2>&1 | tail -20
  echo "pip_check: installed in $(( $(date +%s) - t0 )) s"
fi
cd "$(mktemp -d)"
pkg=$("$PY" -c "import solder, os; print(os.path.dirname(solder.__file__))")
case $pkg in */site-packages/solder) echo "import solder: $pkg" ;; *) echo "solder imported from $pkg"; exit 1 ;; esac
"$PY" - <<'EOF_PY'
import numpy as np, solder
f = solder.Fusion("ln")
x = f.input("x", "f32", ["B", "H"])
w = f.input("w", "f32", ["H"])
f.output(solder.layer_norm(x, 1, w))
ex = solder.Executor(f)
(y,) = ex(np.random.rand(4, 33).astype(np.float32), np.ones(33, np.float32))
assert y.shape == (4, 33), y.shape
print("README example on host arrays: ok")
EOF_PY
"$PY" - <<'EOF_PY'
try:
    import torch
    gpu = torch.cuda.is_available()
except ImportError:
    gpu = False
if gpu:  # the README's example as written
    import solder, torch
    f = solder.Fusion("ln")
    x = f.input("x", "f16", ["B", "H"])
    w = f.input("w", "f16", ["H"])
    f.output(solder.layer_norm(x, 1, w))
    ex = solder.Executor(f)
    xs = torch.randn(8192, 5140, device="cuda").half()
    ws = torch.randn(5140, device="cuda").half()
    (y,) = ex(xs, ws)
    want = torch.nn.functional.layer_norm(xs.float(), (5140,), ws.float()).half()
    torch.testing.assert_close(y, want, atol=2e-2, rtol=1e-2)
    print(ex.explain([[8192, 5140], [5140]]).splitlines()[0])
    g = ex.capture(xs, ws)
    g.replay()
    print("README example on the GPU: ok")
EOF_PY
"$VENV/bin/solder" --help >/dev/null && echo "solder CLI on PATH: ok"
[ -f "$pkg/_solder.pyi" ] && echo "type stubs: ok"
"$PY" -m unittest discover -s "$ROOT/python/tests" 2>&1 | tail -4
