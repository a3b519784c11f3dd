#!/usr/bin/env bash
# Quick start: installs dependencies, builds, then runs kconvfilter kernel=edge
# on GStreamer's test pattern.  Writes before.png and after.png into
# ./kconv-demo (or $1) and prints the element's frame rate on 1080p RGBA.
set -euo pipefail
trap 'echo "quickstart.sh: this step failed (exit $?): $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
pipelines/install-deps.sh
pipelines/build.sh
. pipelines/env.sh
out=${1:-kconv-demo}
mkdir -p "$out"

gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte \
  ! video/x-raw,width=640,height=360 ! tee name=t \
  t. ! queue ! videoconvert ! pngenc ! filesink location="$out/before.png" \
  t. ! queue ! kconvfilter kernel=edge ! videoconvert ! pngenc \
     ! filesink location="$out/after.png"
echo "wrote $out/before.png and $out/after.png"

# Frame rate: the same frames pushed through with and without the filter;
# the difference is the filter's time.
frames=300
caps="video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1"
run() {
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=smpte ! "$caps" \
    ! "$@" ! fakesink sync=false
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l 2>/dev/null || python3 -c "print($t1 - $t0)"
}
base=$(run identity)
with=$(run kconvfilter kernel=edge)
python3 - "$frames" "$base" "$with" <<'PY'
import sys
n, base, total = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
filt = max(total - base, 1e-9)
print(f"kconvfilter kernel=edge, 1920x1080 RGBA: {n / filt:.0f} fps "
      f"({1000 * filt / n:.2f} ms/frame; pipeline with test source {n / total:.0f} fps)")
PY
