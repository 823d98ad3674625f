#!/usr/bin/env bash
# On the GPU machine: build a `git archive` of another commit beside the working tree, for
# same-run A/B timings.   scripts/build_archive.sh NAME TARGET...
# Unpacks .devbase/NAME.tar into /tmp/NAME, builds the targets in /tmp/NAME/build and prints
# "build ok NAME" or "build FAILED NAME" (with the log's tail) last.
set -uo pipefail
name=${1:?archive name}; shift
src=/tmp/$name
rm -rf "$src" && mkdir -p "$src" && tar -xf ".devbase/$name.tar" -C "$src" || { echo "build FAILED $name (no archive)"; exit 1; }
t0=$(date +%s)
if cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DPython_EXECUTABLE="$(command -v python3)" >"$src/build.log" 2>&1 &&
   cmake --build "$src/build" -j "$(nproc)" --target "${@:-solder}" >>"$src/build.log" 2>&1; then
  echo "build ok $name in $(( $(date +%s) - t0 )) s"
else
  tail -20 "$src/build.log"; echo "build FAILED $name"; exit 1
fi
