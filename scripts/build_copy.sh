#!/usr/bin/env bash
# The build step of scripts/build_archive.sh and scripts/build_patched.sh: configures SRC into
# BUILD (Release, Ninja, this python3), builds the targets and prints "build ok NAME in N s" or
# "build FAILED NAME" (with the log's tail) last; BUILD/../build.log keeps the log.
#   scripts/build_copy.sh NAME SRC BUILD TARGET...
set -uo pipefail
name=${1:?name} src=${2:?source dir} build=${3:?build dir}; shift 3
log=$(dirname "$build")/build.log
mkdir -p "$(dirname "$build")"
t0=$(date +%s)
if cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v python3)" >"$log" 2>&1 &&
   cmake --build "$build" -j "$(nproc)" --target "${@:-solder}" >>"$log" 2>&1; then
  echo "build ok $name in $(( $(date +%s) - t0 )) s"
else
  tail -20 "$log"; echo "build FAILED $name"; exit 1
fi
