#!/usr/bin/env bash
# kconvfilter behind NVIDIA's decoder, frames in CUDA memory, against the
# same pipeline with identity in its place (the decoder's own rate):
#   tests/gpu/bench-decoder.sh FILE.mp4 [ROUNDS] [ELEMENT...]
# FILE is H.264 (nvh264dec, NV12) or HEVC (nvh265dec; Main10 gives P010).
# Every named kernel at its defaults is timed, then each ELEMENT given
# (e.g. "kconvfilter kernel=edge planes=luma"); the configurations take
# turns in each of ROUNDS rounds (default 3).  Prints each one's median
# frames/s and its share of identity's median.
set -uo pipefail
file=${1:?usage: bench-decoder.sh FILE.mp4 [ROUNDS] [ELEMENT...]}
rounds=${2:-3}
shift 2 2>/dev/null || shift $#
# the codec and the frames the file holds, read once without decoding
probe=$(gst-launch-1.0 -v filesrc location="$file" ! qtdemux ! fakesink silent=false 2>&1)
case $(echo "$probe" | grep -o 'video/x-h26[45]' | head -n 1) in
  video/x-h265) dec="h265parse ! nvh265dec" ;;
  video/x-h264) dec="h264parse ! nvh264dec" ;;
  *) echo "bench-decoder.sh: $file holds neither H.264 nor HEVC video"; exit 1 ;;
esac
frames=$(echo "$probe" | grep -c 'last-message = chain')
configs=("identity")
for k in edge laplacian sharpen box gaussian sobel-x sobel-y emboss; do
  configs+=("kconvfilter kernel=$k")
done
configs+=("$@")
results=$(mktemp)
for r in $(seq "$rounds"); do
  for c in "${configs[@]}"; do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    gst-launch-1.0 -q filesrc location="$file" ! qtdemux ! $dec \
      ! "video/x-raw(memory:CUDAMemory)" ! $c ! fakesink sync=false \
      || { echo "bench-decoder.sh: failed: $c"; exit 1; }
    t1=$(date +%s.%N)
    echo "$c|$frames|$(echo "$t0 $t1" | awk '{ print $2 - $1 }')" >>"$results"
  done
done
echo "file: $file ($dec, $frames frames), $rounds rounds, medians"
awk -F'|' -v order="$(printf '%s|' "${configs[@]}")" '
  { fps[$1] = fps[$1] " " $2 / $3; frames[$1] = $2 }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    n = split(order, names, "|")
    base = median(fps["identity"])
    printf "%-45s %7s %9s %8s\n", "element", "frames", "frames/s", "of identity"
    for (i = 1; i < n; i++) {
      m = median(fps[names[i]])
      printf "%-45s %7d %9.1f %7.1f%%   (%s)\n", names[i], frames[names[i]], m, 100 * m / base, fps[names[i]]
    }
  }' "$results"
rm -f "$results"
