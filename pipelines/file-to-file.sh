#!/usr/bin/env bash
# Filters a video file into a WebM file.
#   pipelines/file-to-file.sh in.mp4 out.webm [kconvfilter properties...]
# e.g. pipelines/file-to-file.sh in.mp4 out.webm kernel=gaussian kernel-size=9
set -euo pipefail
. "$(dirname "$0")/env.sh"
if [ $# -lt 2 ]; then
  echo "usage: $0 IN OUT.webm [kconvfilter properties...]" >&2
  exit 2
fi
in=$1 out=$2
shift 2
[ $# -gt 0 ] || set -- kernel=sharpen
exec gst-launch-1.0 -e filesrc location="$in" ! decodebin ! videoconvert \
  ! kconvfilter "$@" ! videoconvert ! vp8enc deadline=1 ! webmmux \
  ! filesink location="$out"
