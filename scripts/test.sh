#!/usr/bin/env bash
# Sets up (packages + build) and runs the test suite. Without a GPU the GPU tier skips itself.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# pip install . into a fresh venv and the Python tests against the installed package (about
# 3 minutes after setup.sh, ccache serving the library); SOLDER_PIP_CHECK=0 skips it.
[ "${SOLDER_PIP_CHECK:-1}" = 0 ] || ./scripts/pip_check.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
