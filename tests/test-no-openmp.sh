#!/usr/bin/env bash
# -Dopenmp=disabled builds a CPU backend that runs on one thread, links no
# OpenMP runtime, and gives the same results: configures a copy so, checks
# meson's summary and the plugin's libraries, and runs the core suite
# (the CPU's paths held one by one, suite "paths", run in the main build).
#   tests/test-no-openmp.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
step() {   # name, log, command...
  local name=$1 log=$2; shift 2
  if ! "$@" >"$log" 2>&1; then
    echo "$name failed:"; tail -n 60 "$log"; exit 1
  fi
}
step "meson setup" "$scratch/setup.log" meson setup "$scratch/build" "$src" \
  -Dopenmp=disabled -Dcuda=disabled -Dbenchmarks=disabled
grep -q "CPU backend *: on, one thread" "$scratch/setup.log" \
  || { echo "meson's summary does not say the CPU backend runs on one thread:"; cat "$scratch/setup.log"; exit 1; }
step "meson compile" "$scratch/compile.log" meson compile -C "$scratch/build"
plugin="$scratch/build/gst/libgstkconv.so"
if readelf -d "$plugin" | grep -E "NEEDED.*(gomp|libomp|omp-defaults)"; then
  echo "the plugin links an OpenMP runtime"; exit 1
fi
step "the core tests" "$scratch/test.log" \
  meson test -C "$scratch/build" --suite core --no-suite paths \
    --print-errorlogs
grep -E "^(Ok|Fail|Skipped):" "$scratch/test.log" | tr -s ' ' | tr '\n' ' '
echo
echo "built without OpenMP: one thread, the same results"
