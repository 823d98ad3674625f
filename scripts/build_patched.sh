#!/usr/bin/env bash
# On the GPU machine: build this working tree with a patch applied, beside it, for same-run A/B
# timings of an untimed patch against the tree as it is (scripts/build_archive.sh builds another
# commit instead).   scripts/build_patched.sh NAME PATCH TARGET...
# Copies the tree (no build folders) to /tmp/NAME/src, applies PATCH there (-p1), builds the
# targets in /tmp/NAME/build and prints "build ok NAME" or "build FAILED NAME" (with the log's
# tail) last. An empty PATCH ('') builds the tree as it is.
set -uo pipefail
cd "$(dirname "$0")/.."
name=${1:?name}; patch_file=${2?patch (or '')}; shift 2
src=/tmp/$name/src
rm -rf "/tmp/$name" && mkdir -p "$src"
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C "$src"
if [ -n "$patch_file" ] && ! (cd "$src" && patch -p1 -s < "$OLDPWD/$patch_file"); then
  echo "build FAILED $name (the patch does not apply)"; exit 1
fi
exec "$(dirname "$0")/build_copy.sh" "$name" "$src" "/tmp/$name/build" "$@"
