#!/usr/bin/env bash
# Makes the sample media the README's and pipelines/' launch lines read,
# with GStreamer itself, into DIR (default ./kconv-demo):
#   in.mp4     5 s of the SMPTE test card, 640x360, H.264 in MP4
#   logo.png   a 64x64 piece of that card (kpatternmatch finds it in in.mp4)
#   ball.png   the bouncing ball where it starts (videotestsrc pattern=ball)
# Installs the codecs the lines use first (pipelines/install-deps.sh
# --examples: H.264 decoding and x264enc).
set -euo pipefail
cd "$(dirname "$0")/.."
pipelines/install-deps.sh --examples
. pipelines/env.sh
out=${1:-kconv-demo}
mkdir -p "$out"
gst-launch-1.0 -q videotestsrc num-buffers=150 pattern=smpte \
  ! video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! x264enc speed-preset=veryfast \
  ! mp4mux ! filesink location="$out/in.mp4"
# crop NAME SOURCE_AND_CAPS LEFT TOP W H FRAME_W FRAME_H
crop() {
  gst-launch-1.0 -q $2 ! videoconvert ! video/x-raw,format=RGB \
    ! videocrop left=$3 top=$4 right=$(( $7 - $3 - $5 )) bottom=$(( $8 - $4 - $6 )) \
    ! pngenc ! filesink location="$out/$1"
}
crop logo.png "videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=640,height=360" \
  250 200 64 64 640 360
crop ball.png "videotestsrc num-buffers=1 pattern=ball ! video/x-raw,width=320,height=240" \
  140 100 40 40 320 240
echo "samples.sh: wrote $out/in.mp4, $out/logo.png and $out/ball.png"
