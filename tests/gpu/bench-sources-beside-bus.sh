#!/usr/bin/env bash
# Whether sixteen sources and the bus slow each other down with no element
# between them.  Each round measures alone: the sixteen 1080p RGBA
# videotestsrc ! queue ! identity pipelines of bench-pipelines.sh (frames/s
# and CPU time a frame), sixteen plain memory writers, and sixteen filters
# of kconv-stream-bench (blocking waits: under one core); then the sources
# and the writers again while the filters keep the bus busy.  Sources that
# lose rate and take more CPU time for the same frames, with no core
# taken from them, share the host's memory with the bus's reads and
# writes: beside such sources no element reaches the bus limit.
#   tests/gpu/bench-sources-beside-bus.sh [OUTDIR]   (ROUNDS: default 3;
#                                                     BUILD: the build)
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
b=${BUILD:-build}
RATE_ERR="$out/sources-beside-bus.err"
. "$(dirname "$0")/pipeline-rate.sh"

# the wall and CPU microseconds of one gst-launch-1.0 run
wall_cpu() {
  python3 - "$1" <<'PY' 2>>"$RATE_ERR"
import resource, subprocess, sys, time
t0 = time.time()
p = subprocess.run(["gst-launch-1.0", "-q"] + sys.argv[1].split(),
                   stdout=subprocess.DEVNULL)
t1 = time.time()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int(1e6 * (t1 - t0)), int(1e6 * (r.ru_utime + r.ru_stime)), p.returncode)
PY
}
# frames/s of the sixteen and their CPU per frame: 400 frames each over
# the difference between runs of 500 and 100, so start-up cancels
sources_rate() {
  python3 - "$(wall_cpu "$(sixteen identity 100)")" "$(wall_cpu "$(sixteen identity 500)")" <<'PY'
import sys
(w0, c0, e0), (w1, c1, e1) = (map(int, a.split()) for a in sys.argv[1:])
frames = 16 * 400
print("failed" if e0 or e1 else
      f"{frames / ((w1 - w0) / 1e6):.0f} frames/s, {(c1 - c0) / frames:.0f} us CPU a frame")
PY
}
bench() {
  "$b/tests/bench/kconv-stream-bench" --gpu-wait block \
    --only "1920x1080 RGBA, 3x3" --pipelines 16 2>/dev/null \
    | grep -o '[0-9]* fps together' | grep -o '^[0-9]*'
}

# sixteen writers of plain memory (the kernel zeroing 64 MB blocks, more
# than a cache holds), a probe of the host's memory without GStreamer:
# GB/s all together
writers() {
  local i
  for i in $(seq 16); do
    dd if=/dev/zero of=/dev/null bs=64M count=125 2>&1 | grep -o '[0-9.]* [GM]B/s' &
  done | python3 -c "import sys; print(f'{sum(float(l.split()[0]) / (1 if l.split()[1] == \"GB/s\" else 1000) for l in sys.stdin):.0f} GB/s')"
}

wall_cpu "$(sixteen identity 20)" > /dev/null   # loads the plugins and the GPU once
for r in $(seq "${ROUNDS:-3}"); do
  alone=$(sources_rate)
  mem_alone=$(writers)
  bus_alone=$(bench)
  # the bench in a loop under the sources' two runs and the writers
  rm -f "$out/.stop"
  ( while [ ! -e "$out/.stop" ]; do bench; done ) > "$out/bench-beside.txt" &
  loop=$!
  sleep 3
  beside=$(sources_rate)
  mem_beside=$(writers)
  touch "$out/.stop"
  wait $loop
  bus_beside=$(tr '\n' ' ' < "$out/bench-beside.txt")
  echo "round $r: sixteen sources alone $alone; beside the bus $beside." \
    "Memory writers alone $mem_alone, beside the bus $mem_beside." \
    "Sixteen filters alone $bus_alone frames/s; runs beside the sources and writers (the last one partly alone) $bus_beside"
done
