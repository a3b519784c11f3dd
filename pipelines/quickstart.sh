#!/usr/bin/env bash
# Quick start: installs what kconv needs to build and run, builds it
# (device code only for the GPUs this machine has; none: the CPU backend),
# runs kconvfilter kernel=edge on a photograph, as RGB and as a webcam's
# YUY2, writing before.png, after.png and after-yuy2.png into ./kconv-demo
# (or $1), makes the sample media the README's lines read there
# (pipelines/samples.sh: in.mp4, logo.png, ball.png), prints the
# element's frame rate on 1080p RGBA and how to use the plugin from your
# own shell.
set -euo pipefail
trap 'echo "quickstart.sh: this step failed (exit $?): $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
root=$PWD
pipelines/install-deps.sh

# Device code for the GPUs here alone (a plain meson setup builds every
# architecture, for packagers); an existing build is kept as it is.
gpus=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
  | tr -d '. ' | sort -u | paste -sd, - || true)
setup=()
if [ ! -f build/build.ninja ]; then
  if [ -n "$gpus" ]; then
    echo "quickstart.sh: NVIDIA GPU here (sm_$gpus): CUDA device code for it alone"
    setup=(-Dgpu_archs="$gpus")
  else
    echo "quickstart.sh: no NVIDIA GPU here: building the CPU backend alone" \
      "(for GPUs: meson setup --reconfigure build -Dcuda=enabled)"
    setup=(-Dcuda=disabled)
  fi
fi
pipelines/build.sh "${setup[@]}"
. pipelines/env.sh
out=${1:-kconv-demo}
mkdir -p "$out"

# A photograph (scikit-image's astronaut, kept in pipelines/pictures/)
# before and after kernel=edge: RGB gives coloured edges; the YUY2 a webcam
# sends gives grey ones (planes=auto: neutral chroma).
gst-launch-1.0 -q filesrc location=pipelines/pictures/before.jpg ! jpegdec \
  ! videoconvert ! tee name=t \
  t. ! queue ! videoconvert ! pngenc ! filesink location="$out/before.png" \
  t. ! queue ! videoconvert ! video/x-raw,format=RGBA ! kconvfilter kernel=edge \
     ! videoconvert ! pngenc ! filesink location="$out/after.png" \
  t. ! queue ! videoconvert ! video/x-raw,format=YUY2 ! kconvfilter kernel=edge \
     ! videoconvert ! pngenc ! filesink location="$out/after-yuy2.png"
echo "quickstart.sh: wrote $out/before.png, $out/after.png (RGBA) and $out/after-yuy2.png (YUY2)"

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
  python3 -c "print($t1 - $t0)"
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

# the media the README's lines read, and the codecs they use
pipelines/samples.sh "$out"

cat <<EOF2

kconv is built in $root/build. To use it from your own shell, in the
folder that has the sample media (no camera or display: videotestsrc
is-live=true for v4l2src, fakesink for autovideosink):

  export GST_PLUGIN_PATH=$root/build/gst GST_PRESET_PATH=$root/presets
  cd $(cd "$out" && pwd)

  # a webcam's edges on screen
  gst-launch-1.0 v4l2src ! kconvfilter kernel=edge ! videoconvert ! autovideosink
  # a video file (the sample), blurred, to a new file
  gst-launch-1.0 -e filesrc location=in.mp4 ! decodebin ! videoconvert \\
    ! kconvfilter kernel=gaussian kernel-size=9 ! videoconvert \\
    ! vp8enc deadline=1 ! webmmux ! filesink location=out.webm
  # a preset (presets/GstKConvFilter.prs)
  gst-launch-1.0 videotestsrc ! kconvfilter @preset=blur-strong ! videoconvert ! autovideosink
EOF2
if [ -n "$gpus" ]; then
  cat <<EOF2
  # on the GPU, 4K
  gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,width=3840,height=2160 \\
    ! kconvfilter kernel=edge backend=cuda ! fakesink
EOF2
fi
cat <<EOF2

Or install it where GStreamer finds it without variables (README.md,
Install: the Debian package, or, in $root):
  meson setup build-install --prefix=/usr -Dtests=disabled -Dbenchmarks=disabled
  meson compile -C build-install && sudo meson install -C build-install
EOF2
