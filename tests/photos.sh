#!/usr/bin/env bash
# Writes natural test photographs as PGM (grey) and PPM (RGB) files:
#   tests/photos.sh OUTDIR
# camera, astronaut, coffee and chelsea from scikit-image's data (Debian's
# python3-skimage, found or fetched by pipelines/photo.sh), each at
# 2500x2500 and 1920x1080,
# scaled by GStreamer (pngdec, videoscale, videoconvert).
set -euo pipefail
out=${1:?usage: tests/photos.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
names="camera astronaut coffee chelsea"
sizes="2500x2500 1920x1080"
done_all=1
for n in $names; do for s in $sizes; do
  [ -s "$out/$n-$s.pgm" ] && [ -s "$out/$n-$s.ppm" ] || done_all=0
done; done
[ $done_all = 1 ] && exit 0

data=$(dirname "$("$(dirname "$0")/../pipelines/photo.sh" camera "$out/skimage")")

# convert NAME WxH FORMAT EXT MAGIC
convert () {
  local w=${2%x*} h=${2#*x}
  gst-launch-1.0 -q filesrc location="$data/$1.png" ! pngdec ! videoconvert \
    ! videoscale method=bilinear ! videoconvert \
    ! "video/x-raw,format=$3,width=$w,height=$h" \
    ! filesink location="$out/$1-$2.raw" >/dev/null
  { printf '%s\n%d %d\n255\n' "$5" "$w" "$h"; cat "$out/$1-$2.raw"; } \
    > "$out/$1-$2.$4"
  rm -f "$out/$1-$2.raw"
}
for n in $names; do for s in $sizes; do
  convert "$n" "$s" GRAY8 pgm P5
  convert "$n" "$s" RGB ppm P6
done; done
