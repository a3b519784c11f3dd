#!/usr/bin/env bash
# The CPU a live pipeline costs: 1080p RGB at 30 frames/s through
# kconvfilter on the CPU for 5 s, its process's CPU time (user + system)
# beside the same pipeline with identity.  Between frames OpenMP's idle
# threads should sleep: with kconv's settings the CPU time is the work's;
# GOMP_SPINCOUNT=300000 is libgomp's own default spin, and
# OMP_WAIT_POLICY=active spins without end (the user's setting wins).
#   tests/bench/bench-cpu-idle.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
. pipelines/env.sh
rounds=${1:-3}
caps="video/x-raw,format=RGB,width=1920,height=1080,framerate=30/1"
cpu_ms() {      # CPU milliseconds of one run: environment..., element
  local t
  t=$( { TIMEFORMAT='%U %S'; time env "${@:1:$#-1}" gst-launch-1.0 -q \
    videotestsrc is-live=true num-buffers=150 ! $caps ! ${!#} \
    ! fakesink >/dev/null; } 2>&1 | tail -n 1)
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%d", (a[1] + a[2]) * 1000 }'
}
declare -A runs=(
  [identity]="X=1|identity"
  [kconv]="X=1|kconvfilter kernel=gaussian backend=cpu"
  [kconv-gomp-default]="GOMP_SPINCOUNT=300000|kconvfilter kernel=gaussian backend=cpu"
  [kconv-spinning]="OMP_WAIT_POLICY=active|kconvfilter kernel=gaussian backend=cpu"
)
order="identity kconv kconv-gomp-default kconv-spinning"
declare -A got
for r in $(seq "$rounds"); do
  for name in $order; do
    IFS='|' read -r envs element <<<"${runs[$name]}"
    # shellcheck disable=SC2086
    got[$name]+="$(cpu_ms $envs "$element") "
  done
done
echo "1080p RGB at 30 frames/s, 150 frames (5 s), CPU time of the process, median of $rounds"
for name in $order; do
  # shellcheck disable=SC2086
  printf '%-16s %6d ms\n' "$name" "$(printf '%s\n' ${got[$name]} | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
done
