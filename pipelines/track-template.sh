#!/usr/bin/env bash
# kpatternmatch: cuts a template from the first frame of the bouncing-ball
# test pattern and follows it, printing each frame's result and writing the
# last frame with the match drawn to ./kconv-match.png (or $1).
set -euo pipefail
. "$(dirname "$0")/env.sh"
out=${1:-kconv-match.png}
gst-launch-1.0 -m videotestsrc num-buffers=60 pattern=ball \
  ! video/x-raw,width=320,height=240 \
  ! kpatternmatch template-region=140,100,40,40 search-radius=24 draw=true \
  ! videoconvert ! pngenc ! multifilesink location="$out" 2>&1 \
  | grep -o 'kpatternmatch, x=(int)[0-9-]*, y=(int)[0-9-]*.*found=(boolean)[a-z]*' \
  | sed 's/, width.*found=/ found=/'
echo "wrote $out"
