#!/usr/bin/env bash
# How kpatternmatch's time grows with the number of templates: one to
# eight 64x64 templates cut from a photograph (as PNG files, given to
# template-location as a list), searched in every 1920x1080 grey frame of
# it, beside the same pipeline with identity in the element's place.
#   tests/bench/bench-templates.sh PHOTO_DIR [backend] [methods] [frames] [rounds] [format]
# PHOTO_DIR holds camera-1920x1080.pgm (tests/photos.sh); backend cpu
# (default) or cuda; methods "sad zncc" by default; format GRAY8 (default)
# or another raw format (RGBA: the luma of R, G, B).  Prints frames/s, the
# median of the rounds, each the rate between a run of frames and one of
# frames/5 (start-up cancels).  PYTHON names a Python with PIL or OpenCV.
set -euo pipefail
cd "$(dirname "$0")/../.."
. pipelines/env.sh
photos=$1
backend=${2:-cpu}
methods=${3:-sad zncc}
frames=${4:-100}
rounds=${5:-3}
format=${6:-GRAY8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

${PYTHON:-python3} - "$photos/camera-1920x1080.pgm" "$work" <<'PY'
import sys
try:
    from PIL import Image
    im = Image.open(sys.argv[1]).convert("L")
    save = lambda a, name: a.save(name)
    crop = lambda x, y: im.crop((x, y, x + 64, y + 64))
except ImportError:  # (where only OpenCV is at hand)
    import cv2
    im = cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE)
    save = lambda a, name: cv2.imwrite(name, a)
    crop = lambda x, y: im[y:y + 64, x:x + 64]
save(im, f"{sys.argv[2]}/frame.png")
# eight places with texture, apart from each other
for i, (x, y) in enumerate([(300, 200), (900, 150), (1500, 300), (200, 700),
                            (800, 600), (1300, 800), (1700, 900), (500, 950)]):
    save(crop(x, y), f"{sys.argv[2]}/t{i}.png")
PY

src="filesrc location=$work/frame.png ! pngdec ! imagefreeze num-buffers=@N@ \
! videoconvert ! video/x-raw,format=$format ! queue"

# microseconds a pipeline of n frames takes
run_us() {  # element, n
  local t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q ${src//@N@/$2} ! $1 ! fakesink sync=false >/dev/null
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

rate() {  # element: frames/s, median over the rounds
  local r long short all=()
  for r in $(seq "$rounds"); do
    long=$(run_us "$1" "$frames")
    short=$(run_us "$1" $((frames / 5)))
    all+=("$(python3 -c "print(($frames - $frames // 5) / (($long - $short) / 1e6))")")
  done
  printf '%s\n' "${all[@]}" | sort -g | sed -n "$(( (rounds + 1) / 2 ))p"
}

echo "1920x1080 $format (camera), 64x64 templates, backend=$backend, $frames frames"
printf '%-8s%-10s%12s%14s\n' method templates "frames/s" "ms a frame"
printf '%-8s%-10s%12.0f\n' - identity "$(rate identity)"
for m in $methods; do
  for n in 1 2 4 8; do
    list=$(seq -s, -f "$work/t%g.png" 0 $((n - 1)))
    fps=$(rate "kpatternmatch backend=$backend method=$m template-location=$list")
    printf '%-8s%-10s%12.1f%14.2f\n' "$m" "$n" "$fps" "$(python3 -c "print(1000 / $fps)")"
  done
done
