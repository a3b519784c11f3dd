#!/usr/bin/env bash
# Configures (once) and builds kconv in ./build, one line a step and the
# build's progress every 5 s.  The tools' own output goes to
# build/setup.log and build/compile.log, and its end is shown when a step
# fails.  Extra arguments go to meson setup (a new build folder only).
set -uo pipefail
cd "$(dirname "$0")/.."
. pipelines/progress.sh
fail() {   # step, log
  progress_stop >/dev/null
  echo "build.sh: $1 failed; the end of its output ($2):" >&2
  tail -n 40 "$2" >&2
  exit 1
}
if [ ! -f build/build.ninja ]; then
  # a setup that failed earlier leaves a folder meson will not reuse
  rm -rf build
  echo "build.sh: configuring (meson setup build${*:+ $*})"
  log=$(mktemp)
  progress_start "build.sh: configuring"
  meson setup build "$@" >"$log" 2>&1 || fail "meson setup build" "$log"
  progress_stop
  mv "$log" build/setup.log
  # what was found: the backends, and how to turn CUDA on where it is off
  sed -n '/^  Backends/,/^$/p' build/setup.log
fi
echo "build.sh: compiling (meson compile -C build)"
steps() {   # ninja's last "[n/N] ..." line, as "n of N steps"
  grep -o '^\[[0-9]*/[0-9]*\]' build/compile.log | tail -n 1 \
    | sed 's/\[\(.*\)\/\(.*\)\]/\1 of \2 steps/'
}
progress_start "build.sh: compiling" steps
meson compile -C build >build/compile.log 2>&1 || fail "meson compile -C build" build/compile.log
progress_stop
echo "build.sh: built in $PWD/build"
