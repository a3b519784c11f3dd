#!/usr/bin/env bash
# kpatternmatch scales: a template found as the picture zooms.  Cuts a
# 64x64 template at X,Y from a picture (PICTURE; by default the SMPTE test
# card at 640x360 with a badge of blurred noise in the middle, cut at
# 288,148), makes frames of that picture zoomed from 0.6 to 1.7 times round
# its centre (GStreamer's videoscale and videobox), and finds the template
# in each at the 15 sizes of scales=0.5:2:1.1 by zncc, printing the scale
# and place found and writing the frames with the match drawn to OUT
# (default ./kconv-zoom/).
#   pipelines/zoom-match.sh [OUT [PICTURE [X Y]]]
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-kconv-zoom}
picture=${2:-}
tx=${3:-288}
ty=${4:-148}
mkdir -p "$out"
if [ -z "$picture" ]; then
  picture=$out/picture.png
  gst-launch-1.0 -q compositor name=c sink_1::xpos=256 sink_1::ypos=132 \
    ! video/x-raw,width=640,height=360,format=RGB ! videoconvert ! pngenc \
    ! filesink location="$picture" \
    videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=360 ! c. \
    videotestsrc num-buffers=1 pattern=snow ! video/x-raw,width=128,height=96,format=RGBA \
    ! kconvfilter kernel=gaussian kernel-size=9 ! videoconvert ! c.
fi
# the picture's size, from the caps pngdec gives it
caps=$(gst-launch-1.0 -v filesrc location="$picture" ! pngdec ! fakesink 2>&1 \
  | grep -o 'width=(int)[0-9]*, height=(int)[0-9]*' | head -n 1)
w=$(echo "$caps" | sed 's/width=(int)\([0-9]*\).*/\1/')
h=$(echo "$caps" | sed 's/.*height=(int)\([0-9]*\)/\1/')
gst-launch-1.0 -q filesrc location="$picture" ! pngdec ! videoconvert \
  ! video/x-raw,format=RGB ! videocrop left=$tx top=$ty right=$((w - tx - 64)) \
  bottom=$((h - ty - 64)) ! pngenc ! filesink location="$out/template.png"
zooms="0.6 0.7 0.8 0.9 1.0 1.1 1.25 1.4 1.55 1.7"
i=0
for zoom in $zooms; do
  # the picture zoomed round its centre, cropped or framed in black to w x h
  zw=$(awk -v z=$zoom -v n=$w 'BEGIN { printf "%d", n * z + 0.5 }')
  zh=$(awk -v z=$zoom -v n=$h 'BEGIN { printf "%d", n * z + 0.5 }')
  l=$(( (zw - w) / 2 )); t=$(( (zh - h) / 2 ))
  gst-launch-1.0 -q filesrc location="$picture" ! pngdec ! videoconvert \
    ! videoscale method=bilinear ! video/x-raw,width=$zw,height=$zh \
    ! videobox fill=0 left=$l top=$t right=$(( zw - w - l )) bottom=$(( zh - h - t )) \
    ! videoconvert ! pngenc ! filesink location="$(printf '%s/zoom-%02d.png' "$out" $i)"
  i=$((i + 1))
done
# zoom, then what was found: x, y, width, height, scale
printf 'zoom %s:\n' $zooms > "$out/zooms.txt"
gst-launch-1.0 -m multifilesrc location="$out/zoom-%02d.png" index=0 stop-index=$((i - 1)) \
  caps=image/png,framerate=1/1 ! pngdec ! videoconvert ! video/x-raw,format=RGB \
  ! kpatternmatch template-location="$out/template.png" scales=0.5:2:1.1 method=zncc \
    draw=true ! videoconvert ! pngenc ! multifilesink location="$out/found-%02d.png" 2>&1 \
  | grep -o 'kpatternmatch, x=(int)[0-9-]*, y=(int)[0-9-]*, width=(int)[0-9]*, height=(int)[0-9]*.*scale=(double)[0-9.]*' \
  | sed 's/(int)//g; s/(double)//g; s/, method=.*scale=/, scale=/; s/^kpatternmatch, //' \
  | paste -d ' ' "$out/zooms.txt" -
echo "zoom-match.sh: wrote $out/found-00.png .. found-$(printf %02d $((i - 1))).png"
