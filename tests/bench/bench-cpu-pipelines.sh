#!/usr/bin/env bash
# kconvfilter on the CPU beside OpenCV's GStreamer elements, in the same
# gst-launch-1.0 pipelines, alone and on a busy machine (a second pipeline
# filtering at the same time).  Needs gstreamer1.0-opencv for the peers.
#   tests/bench/bench-cpu-pipelines.sh [frames] [rounds]
# Prints frames/s, the median over the rounds (alternating the elements in
# each round, so that a machine whose speed drifts treats all alike).
set -euo pipefail
cd "$(dirname "$0")/../.."
. pipelines/env.sh
frames=${1:-300}
rounds=${2:-3}
caps="video/x-raw,format=RGB,width=1920,height=1080"
src="videotestsrc num-buffers=$frames ! $caps ! queue"
declare -A elements=(
  [identity]="identity"
  [kconv-gaussian3]="kconvfilter kernel=gaussian kernel-size=3 backend=cpu frames-in-flight=1"
  [cv-smooth3]="cvsmooth type=gaussian kernel-width=3 kernel-height=3"
  [kconv-sobel-x]="kconvfilter kernel=sobel-x backend=cpu frames-in-flight=1"
  [cv-sobel]="cvsobel"
  [kconv-box31]="kconvfilter kernel=box kernel-size=31 backend=cpu frames-in-flight=1"
  [cv-blur31]="cvsmooth type=blur kernel-width=31 kernel-height=31"
)
order="identity kconv-gaussian3 cv-smooth3 kconv-sobel-x cv-sobel kconv-box31 cv-blur31"
busy="gst-launch-1.0 -q videotestsrc num-buffers=100000 ! $caps ! cvsmooth ! fakesink sync=false"

seconds() {      # seconds a pipeline takes
  local t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $src ! $1 ! fakesink sync=false >/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

declare -A alone loaded
for r in $(seq "$rounds"); do
  for name in $order; do
    alone[$name]+="$(seconds "${elements[$name]}") "
  done
  $busy >/dev/null 2>&1 &
  busy_pid=$!
  sleep 0.5
  for name in $order; do
    loaded[$name]+="$(seconds "${elements[$name]}") "
  done
  kill $busy_pid 2>/dev/null; wait $busy_pid 2>/dev/null || true
done

python3 - "$frames" "$order" <<PY
import statistics, sys
frames = int(sys.argv[1])
alone = {$(for n in $order; do printf '"%s": "%s", ' "$n" "${alone[$n]}"; done)}
loaded = {$(for n in $order; do printf '"%s": "%s", ' "$n" "${loaded[$n]}"; done)}
print(f"1920x1080 RGB, {frames} frames, median of rounds; busy = a cvsmooth pipeline beside it")
print(f"{'element':<18}{'alone fps':>10}{'busy fps':>10}")
for name in sys.argv[2].split():
    a = statistics.median(int(v) for v in alone[name].split()) / 1e6
    b = statistics.median(int(v) for v in loaded[name].split()) / 1e6
    print(f"{name:<18}{frames / a:>10.0f}{frames / b:>10.0f}")
PY
