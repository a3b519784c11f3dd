#!/usr/bin/env bash
# The build on a machine without the CUDA toolkit: configures a copy with
# -Dtoolkit_dir pointing at an empty folder and every folder holding nvcc
# taken off the PATH, checks that meson's summary says the CUDA backend is
# off and how to turn it on, builds everything, and runs the core and
# element tests there (not the CPU's paths held one by one: the suite
# "paths" tests CPU code this build shares with the main one).
#   tests/test-no-toolkit.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
# on a machine with no toolkit at all the main build is this build
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "no CUDA toolkit on this machine: its own build is the build without it"
  exit 77
fi
src=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch/empty-toolkit"
path=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -x "$d/nvcc" ] || path="${path:+$path:}$d"
done
export PATH=$path
if command -v nvcc >/dev/null; then
  echo "nvcc is still on the PATH: $(command -v nvcc)"; exit 1
fi
step() {   # name, log, command...
  local name=$1 log=$2; shift 2
  if ! "$@" >"$log" 2>&1; then
    echo "$name failed:"; tail -n 60 "$log"; exit 1
  fi
}
step "meson setup" "$scratch/setup.log" \
  meson setup "$scratch/build" "$src" -Dtoolkit_dir="$scratch/empty-toolkit"
grep -q "CUDA backend *: off: no nvcc" "$scratch/setup.log" \
  || { echo "meson's summary does not say the CUDA backend is off:"; cat "$scratch/setup.log"; exit 1; }
grep -q "to turn CUDA on *: install the CUDA toolkit" "$scratch/setup.log" \
  || { echo "meson's summary does not say how to turn CUDA on"; exit 1; }
step "meson compile" "$scratch/compile.log" meson compile -C "$scratch/build"
[ -f "$scratch/build/gst/libgstkconv.so" ] || { echo "no plugin built"; exit 1; }
[ -x "$scratch/build/tests/bench/kconv-bench" ] || { echo "no kconv-bench built"; exit 1; }
step "the core and element tests" "$scratch/test.log" \
  meson test -C "$scratch/build" --suite core --suite element \
    --no-suite paths --print-errorlogs
grep -E "^(Ok|Fail|Skipped):" "$scratch/test.log" | tr -s ' ' | tr '\n' ' '
echo
echo "built and tested without the CUDA toolkit"
