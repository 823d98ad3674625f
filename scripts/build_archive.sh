#!/usr/bin/env bash
# On the GPU machine: build a `git archive` of another commit beside the working tree, for
# same-run A/B timings.   scripts/build_archive.sh NAME TARGET...
# Unpacks .devbase/NAME.tar into /tmp/NAME, builds the targets in /tmp/NAME/build and prints
# "build ok NAME" or "build FAILED NAME" (with the log's tail) last.
set -uo pipefail
name=${1:?archive name}; shift
src=/tmp/$name
rm -rf "$src" && mkdir -p "$src" && tar -xf ".devbase/$name.tar" -C "$src" || { echo "build FAILED $name (no archive)"; exit 1; }
exec "$(dirname "$0")/build_copy.sh" "$name" "$src" "$src/build" "$@"
