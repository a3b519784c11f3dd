#!/usr/bin/env bash
# Both elements the way users run them: gst-launch-1.0 pipelines with a queue
# before the element, beside the same pipeline with identity in its place,
# the source alone, and GStreamer's own CUDA round trip (cudaupload !
# cudadownload), all in one run.  Prints one table of frames/s.
#   tests/gpu/bench-pipelines.sh [OUTDIR]
# Each rate is (N - N/5) frames over the difference between a run of N
# frames and one of N/5, so start-up (plugin loading, CUDA context) cancels;
# the median of ROUNDS such pairs (default 3).
# The source is videotestsrc pattern=solid-color, which does not draw every
# pixel of every frame.  GST_PLUGIN_PATH must point at the kconv build.
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
csv="$out/pipelines.csv"
echo "size,format,element,fps" > "$csv"

RATE_ERR="$out/pipelines.err"
. "$(dirname "$0")/pipeline-rate.sh"

# frames/s of SOURCE ! ELEMENT ! fakesink
rate() {
  local w=$1 h=$2 fmt=$3 n=$4 element=$5
  local caps="video/x-raw,format=$fmt,width=$w,height=$h,framerate=1000/1"
  local tail="fakesink sync=false"
  [ -n "$element" ] && tail="queue ! $element ! fakesink sync=false"
  pipeline_rate "videotestsrc pattern=solid-color num-buffers=@N@ ! $caps ! $tail" "$n"
}

row() {   # size format label element frames
  local fps
  fps=$(rate "${1%x*}" "${1#*x}" "$2" "$5" "$4")
  printf '%-10s %-6s %-52s %8s\n' "$1" "$2" "$3" "$fps"
  echo "$1,$2,$3,$fps" >> "$csv"
}

printf '%-10s %-6s %-52s %8s\n' size format pipeline frames/s
for size in 1920x1080 3840x2160; do
  n=1200
  [ "$size" = 3840x2160 ] && n=400
  for fmt in RGBA I420 NV12 YUY2; do
    [ "$size" = 3840x2160 ] && [ "$fmt" != RGBA ] && [ "$fmt" != NV12 ] && continue
    row $size $fmt "source alone" "" $n
    row $size $fmt "identity" "identity" $n
    row $size $fmt "kconvfilter kernel=edge backend=cuda" "kconvfilter kernel=edge backend=cuda" $n
    if [ "$size" = 1920x1080 ] && [ "$fmt" = RGBA ]; then
      row $size $fmt "kconvfilter gaussian 31 backend=cuda" "kconvfilter kernel=gaussian kernel-size=31 backend=cuda" $n
      row $size $fmt "kconvfilter box 31 backend=cuda" "kconvfilter kernel=box kernel-size=31 backend=cuda" $n
      row $size $fmt "kconvfilter kernel=edge backend=cpu" "kconvfilter kernel=edge backend=cpu frames-in-flight=1" 300
    fi
    row $size $fmt "cudaupload ! cudadownload" "cudaupload ! cudadownload" $n
  done
  for fmt in GRAY8 RGBA; do
    row $size $fmt "kpatternmatch template-region=100,100,64,64 backend=cuda" \
      "kpatternmatch template-region=100,100,64,64 backend=cuda" $n
  done
  row $size RGBA "kpatternmatch ... match-on=color backend=cuda" \
    "kpatternmatch template-region=100,100,64,64 match-on=color backend=cuda" $n
done

# 16 pipelines of 1080p RGBA in one process, all frames together
many() {   # element frames
  local desc="" i
  for i in $(seq 16); do
    desc="$desc videotestsrc pattern=solid-color num-buffers=$2 ! video/x-raw,format=RGBA,width=1920,height=1080,framerate=1000/1 ! queue ! $1 ! fakesink sync=false"
  done
  echo "$desc"
}
a=$(run_time "$(many identity 100)"); b=$(run_time "$(many identity 500)")
fps=$(python3 -c "print(f'{16 * 400 / max(($b - $a) / 1e6, 1e-6):.0f}')")
printf '%-10s %-6s %-52s %8s\n' 16x1080p RGBA "16 pipelines, identity" "$fps"
echo "16x1920x1080,RGBA,16 pipelines identity,$fps" >> "$csv"
a=$(run_time "$(many 'kconvfilter kernel=edge backend=cuda' 100)")
b=$(run_time "$(many 'kconvfilter kernel=edge backend=cuda' 500)")
fps=$(python3 -c "print(f'{16 * 400 / max(($b - $a) / 1e6, 1e-6):.0f}')")
printf '%-10s %-6s %-52s %8s\n' 16x1080p RGBA "16 pipelines, kconvfilter edge cuda" "$fps"
echo "16x1920x1080,RGBA,16 pipelines kconvfilter edge cuda,$fps" >> "$csv"
grep -c FAILED "$out/pipelines.err" 2>/dev/null | sed 's/^/failed pipelines: /'
