#!/usr/bin/env bash
# Both elements the way users run them: gst-launch-1.0 pipelines with a queue
# before the element, beside the same pipeline with identity in its place,
# the source alone, and GStreamer's own CUDA round trip (cudaupload !
# cudadownload), all in one run.  Prints one table of frames/s.
#   tests/gpu/bench-pipelines.sh [OUTDIR]      (ROUNDS: default 3)
# Each rate is (N - N/5) frames over the difference between a run of N
# frames and one of N/5, so start-up (plugin loading, CUDA context) cancels.
# The host's speed drifts by up to 25% within minutes, so the rows are
# measured round by round, every row once a round: a row's rate is the
# median over the rounds, and its share of identity the median of its
# ratios to the identity row measured in the same round.
# The source is videotestsrc pattern=solid-color, which does not draw every
# pixel of every frame.  GST_PLUGIN_PATH must point at the kconv build.
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
raw="$out/pipelines-rounds.csv"
echo "round,size,format,pipeline,fps" > "$raw"

RATE_ERR="$out/pipelines.err"
. "$(dirname "$0")/pipeline-rate.sh"

rows=()   # size|format|label|element|frames
add() { rows+=("$1|$2|$3|$4|$5"); }
for size in 1920x1080 3840x2160; do
  n=1200
  [ "$size" = 3840x2160 ] && n=400
  for fmt in RGBA I420 NV12 YUY2; do
    [ "$size" = 3840x2160 ] && [ "$fmt" != RGBA ] && [ "$fmt" != NV12 ] && continue
    add $size $fmt "source alone" "" $n
    add $size $fmt "identity" "identity" $n
    add $size $fmt "kconvfilter kernel=edge backend=cuda" "kconvfilter kernel=edge backend=cuda" $n
    if [ "$size" = 1920x1080 ] && [ "$fmt" = RGBA ]; then
      add $size $fmt "kconvfilter gaussian 31 backend=cuda" "kconvfilter kernel=gaussian kernel-size=31 backend=cuda" $n
      add $size $fmt "kconvfilter box 31 backend=cuda" "kconvfilter kernel=box kernel-size=31 backend=cuda" $n
      add $size $fmt "kconvfilter kernel=edge backend=cpu" "kconvfilter kernel=edge backend=cpu frames-in-flight=1" 300
    fi
    add $size $fmt "cudaupload ! cudadownload" "cudaupload ! cudadownload" $n
  done
  add $size GRAY8 "identity" "identity" $n
  for fmt in GRAY8 RGBA; do
    add $size $fmt "kpatternmatch 64x64 template backend=cuda" \
      "kpatternmatch template-region=100,100,64,64 backend=cuda" $n
  done
  add $size RGBA "kpatternmatch 64x64 template match-on=color backend=cuda" \
    "kpatternmatch template-region=100,100,64,64 match-on=color backend=cuda" $n
done

for r in $(seq "${ROUNDS:-3}"); do
  for row in "${rows[@]}"; do
    IFS='|' read -r size fmt label element n <<< "$row"
    caps="video/x-raw,format=$fmt,width=${size%x*},height=${size#*x},framerate=1000/1"
    tail="fakesink sync=false"
    [ -n "$element" ] && tail="queue ! $element ! fakesink sync=false"
    fps=$(ROUNDS=1 pipeline_rate "videotestsrc pattern=solid-color num-buffers=@N@ ! $caps ! $tail" "$n")
    echo "$r,$size,$fmt,$label,$fps" >> "$raw"
  done
done

# (labels hold no commas: the file is read as CSV)
# the table: median rate, and the median of the per-round ratios to
# identity on the same size and format
python3 - "$raw" "$out/pipelines.csv" <<'EOF'
import csv, statistics, sys
from collections import defaultdict
rates = defaultdict(dict)                 # (size, fmt, label) -> round -> fps
order = []
for row in csv.DictReader(open(sys.argv[1])):
    key = (row["size"], row["format"], row["pipeline"])
    if key not in rates:
        order.append(key)
    rates[key][row["round"]] = float(row["fps"])
print(f"{'size':<10} {'format':<6} {'pipeline':<58} {'frames/s':>8} {'of identity':>11}")
with open(sys.argv[2], "w") as out:
    out.write("size,format,pipeline,fps,of_identity\n")
    for key in order:
        fps = statistics.median(rates[key].values())
        ident = rates.get((key[0], key[1], "identity"))
        share = ""
        if ident and key[2] not in ("identity", "source alone"):
            ratios = [v / ident[r] for r, v in rates[key].items() if ident.get(r)]
            share = f"{100 * statistics.median(ratios):.0f}%" if ratios else ""
        print(f"{key[0]:<10} {key[1]:<6} {key[2]:<58} {fps:8.0f} {share:>11}")
        out.write(f"{key[0]},{key[1]},{key[2]},{fps:.0f},{share}\n")
EOF

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
printf '%-10s %-6s %-58s %8s\n' 16x1080p RGBA "16 pipelines, identity" "$fps"
echo "16x1920x1080,RGBA,16 pipelines identity,$fps," >> "$out/pipelines.csv"
a=$(run_time "$(many 'kconvfilter kernel=edge backend=cuda' 100)")
b=$(run_time "$(many 'kconvfilter kernel=edge backend=cuda' 500)")
fps=$(python3 -c "print(f'{16 * 400 / max(($b - $a) / 1e6, 1e-6):.0f}')")
printf '%-10s %-6s %-58s %8s\n' 16x1080p RGBA "16 pipelines, kconvfilter edge cuda" "$fps"
echo "16x1920x1080,RGBA,16 pipelines kconvfilter edge cuda,$fps," >> "$out/pipelines.csv"
grep -c FAILED "$out/pipelines.err" 2>/dev/null | sed 's/^/failed pipelines: /'
