#!/usr/bin/env bash
# pipelines/blur-faces.sh as a user runs it: on the astronaut photograph
# GStreamer's facedetect finds a face, and kconvfilter regions=roi blurs
# that rectangle alone: every pixel outside it is the photograph's, most
# inside it changed.  Skipped (77) without facedetect (gstreamer1.0-opencv:
# pipelines/install-deps.sh --faces) or the photograph.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gst-inspect-1.0 facedetect >/dev/null 2>&1 || { echo "no facedetect: skipped"; exit 77; }
picture=$("$root/pipelines/photo.sh" astronaut 2>/dev/null) || { echo "no photograph: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
faces=$("$root/pipelines/blur-faces.sh" "$dir/out.png" "$picture" | grep '^face' || true)
echo "$faces"
[ -n "$faces" ] || { echo "FAIL: no face found"; exit 1; }
raw() {  # PNG OUT: its pixels as RGB bytes
  gst-launch-1.0 -q filesrc location="$1" ! pngdec ! videoconvert \
    ! video/x-raw,format=RGB ! filesink location="$2"
}
raw "$picture" "$dir/in.rgb"
raw "$dir/out.png" "$dir/out.rgb"
python3 - "$dir/in.rgb" "$dir/out.rgb" "$faces" <<'PY'
import re, sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
w = h = 512
boxes = [tuple(map(int, m)) for m in re.findall(
    r"x=(\d+), y=(\d+), width=(\d+), height=(\d+)", sys.argv[3])]
inside = lambda x, y: any(bx <= x < bx + bw and by <= y < by + bh
                          for bx, by, bw, bh in boxes)
changed_out = changed_in = n_in = 0
for y in range(h):
    for x in range(w):
        i = (y * w + x) * 3
        diff = a[i:i + 3] != b[i:i + 3]
        if inside(x, y):
            n_in += 1
            changed_in += diff
        else:
            changed_out += diff
print(f"{len(boxes)} face(s): {changed_in} of {n_in} pixels inside changed, "
      f"{changed_out} outside")
sys.exit(0 if changed_out == 0 and changed_in > n_in // 2 else 1)
PY
