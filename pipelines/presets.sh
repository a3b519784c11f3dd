#!/usr/bin/env bash
# Renders every kconvfilter preset on the test pattern as preset-NAME.png in
# ./kconv-presets (or $1), using gst-launch's @preset= syntax.
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-kconv-presets}
mkdir -p "$out"
presets=$(sed -n 's/^\[\([^_].*\)\]$/\1/p' "$kconv_root/presets/GstKConvFilter.prs")
for p in $presets; do
  gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=smpte \
    ! video/x-raw,width=480,height=270 ! kconvfilter @preset="$p" \
    ! videoconvert ! pngenc ! filesink location="$out/preset-$p.png"
  echo "$out/preset-$p.png"
done
