#!/usr/bin/env bash
# Sets up and runs the main job: `solder bench` on the W1-W5 suite. On a machine without a GPU
# it says so and reports what it can (compile times, ptxas figures, reference checks).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec "./${BUILD_DIR:-build}/solder" bench "$@"
