#!/usr/bin/env bash
# kconvfilter on the CPU in gst-launch-1.0 pipelines fed from a raw file held
# in memory, so that frames reach the element from RAM, not from the CPU's
# caches (as from a decoder or a camera), against identity in its place:
#  - without a queue the element's work adds to the source's, and the
#    difference from identity is what the element costs a frame;
#  - with a queue before it (as users run it) the two overlap: frames/s.
# OpenCV's cv::filter2D / sepFilter2D on the same kernels is timed by
# kconv-bench in the same run (cached frames: the kernels' own speed).
#   tests/bench/bench-file-pipeline.sh [frames] [rounds]
# BUILD names the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/../.."
b=${BUILD:-build}
export GST_PLUGIN_PATH="$PWD/$b/gst" GST_PRESET_PATH="$PWD/presets"
frames=${1:-200}
rounds=${2:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
raw=$dir/frames.rgba
gst-launch-1.0 -q videotestsrc pattern=snow num-buffers="$frames" \
  ! video/x-raw,format=RGBA,width=1920,height=1080 ! filesink location="$raw"
src="filesrc location=$raw ! rawvideoparse format=rgba width=1920 height=1080"
declare -A elements=(
  [identity]="identity"
  [arbitrary-3x3]="kconvfilter backend=cpu frames-in-flight=1 matrix=0.11,-0.07,0.23;0.19,0.31,0.05;-0.13,0.17,0.14"
  [edge-3x3]="kconvfilter backend=cpu frames-in-flight=1 kernel=edge"
  [gaussian-3x3]="kconvfilter backend=cpu frames-in-flight=1 kernel=gaussian kernel-size=3"
)
order="identity arbitrary-3x3 edge-3x3 gaussian-3x3"

microseconds() {      # how long a pipeline takes
  local t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $src ! $1 ! fakesink sync=false >/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

declare -A plain queued
for _ in $(seq "$rounds"); do     # alternating, so drift treats all alike
  for name in $order; do
    plain[$name]+="$(microseconds "${elements[$name]}") "
    queued[$name]+="$(microseconds "queue ! ${elements[$name]}") "
  done
done
peer=$("$b/tests/bench/kconv-bench" --only "1920x1080 RGBA" 2>/dev/null \
  | grep -E "arbitrary 3x3|edge 3x3|gaussian 3x3" || true)

python3 - "$frames" "$order" "$peer" <<PY
import statistics, sys
frames, order, peer = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3]
plain = {$(for n in $order; do printf '"%s": "%s", ' "$n" "${plain[$n]}"; done)}
queued = {$(for n in $order; do printf '"%s": "%s", ' "$n" "${queued[$n]}"; done)}
med = lambda s: statistics.median(int(v) for v in s.split()) / 1e3   # ms
bench = {}
for line in peer.splitlines():
    f = line.split()
    bench[f[2] + "-" + f[3]] = (float(f[5]), float(f[8]))   # kconv, OpenCV ms
print(f"1920x1080 RGBA from a raw file in memory, {frames} frames, median of rounds")
print(f"{'element':<16}{'ms/frame':>10}{'vs identity':>13}{'queued fps':>12}"
      f"{'kconv-bench':>13}{'OpenCV':>9}{'OpenCV/pipeline':>17}")
base = med(plain["identity"])
for name in order:
    per = (med(plain[name]) - base) / frames
    fps = frames / med(queued[name]) * 1e3
    k, o = bench.get(name, (float("nan"), float("nan")))
    added = "" if name == "identity" else f"{per:+.2f}"
    ratio = "" if name == "identity" else f"{o / per:.2f}x"
    print(f"{name:<16}{med(plain[name]) / frames:>10.2f}{added:>13}{fps:>12.0f}"
          f"{k:>13.2f}{o:>9.2f}{ratio:>17}")
PY
