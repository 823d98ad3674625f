#!/usr/bin/env bash
# The CPU tier under AddressSanitizer + UndefinedBehaviorSanitizer, in one command:
#   ./scripts/sanitize.sh                    # build build-asan/ and run every CPU test
#   ./scripts/sanitize.sh -R 'Bounds|BadInput|Fuzz'   # extra arguments go to ctest
# SANITIZE_TARGETS="bounds_test bad_input_corpus_test" builds only those test binaries (a
# 2-core machine takes about 40 minutes for everything); pair it with a matching -R.
# Any report fails its test: UBSan halts on the first error, ASan aborts (a signal the
# bad-input corpus counts as a crash). The Python module is not built here.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-asan}
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS -Wl,--as-needed" \
  -DCMAKE_SHARED_LINKER_FLAGS="$FLAGS -Wl,--as-needed" >/dev/null  # no libcuda.so.1 needed: it is dlopen()ed
if [ -n "${SANITIZE_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build "$BUILD" -j "$(nproc)" --target solder_cli $SANITIZE_TARGETS
else
  cmake --build "$BUILD" -j "$(nproc)"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export SOLDER_FUZZ_SECONDS=${SOLDER_FUZZ_SECONDS:-60}
ctest --test-dir "$BUILD" -L cpu -j "$(nproc)" --output-on-failure "$@"
