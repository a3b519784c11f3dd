#!/usr/bin/env bash
# Configures (once) and builds kconv in ./build, one line a step and the
# build's progress every 10%.  The tools' own output goes to
# build/setup.log and build/compile.log, and its end is shown when a step
# fails.  Extra arguments go to meson setup (a new build folder only).
set -uo pipefail
cd "$(dirname "$0")/.."
fail() {   # step, log
  echo "build.sh: $1 failed; the end of its output ($2):" >&2
  tail -n 40 "$2" >&2
  exit 1
}
if [ ! -f build/build.ninja ]; then
  # a setup that failed earlier leaves a folder meson will not reuse
  rm -rf build
  echo "build.sh: configuring (meson setup build${*:+ $*})"
  log=$(mktemp)
  meson setup build "$@" >"$log" 2>&1 || fail "meson setup build" "$log"
  mv "$log" build/setup.log
  # what was found: the backends, and how to turn CUDA on where it is off
  sed -n '/^  Backends/,/^$/p' build/setup.log
fi
echo "build.sh: compiling (meson compile -C build)"
progress() {   # ninja's "[n/N] ..." lines, as one line every 10%
  local last=0 line n total pct
  while IFS= read -r line; do
    printf '%s\n' "$line" >>build/compile.log
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
    pct=$(( 100 * n / total / 10 * 10 ))
    if [ $pct -gt $last ]; then
      echo "build.sh: $pct% ($n of $total steps)"; last=$pct
    fi
  done
}
: >build/compile.log
meson compile -C build 2>&1 | progress
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "meson compile -C build" build/compile.log
echo "build.sh: built in $PWD/build"
