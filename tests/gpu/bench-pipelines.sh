#!/usr/bin/env bash
# Both elements the way users run them: gst-launch-1.0 pipelines with a queue
# before the element, beside the same pipeline with identity in its place,
# the source alone, and GStreamer's own CUDA round trip (cudaupload !
# video/x-raw(memory:CUDAMemory) ! cudadownload: without the caps filter
# cudaupload keeps system memory, since cudadownload takes both, and
# nothing crosses the bus), all in one run.  Prints one table of frames/s.
#   tests/gpu/bench-pipelines.sh [OUTDIR]      (ROUNDS: default 3; BUILD:
#                                               the build, for the bus limit;
#                                               ONLY: the rows whose size,
#                                               format or label holds one of
#                                               these words, and the sixteen
#                                               pipelines only if one is 16)
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
    add $size $fmt "cudaupload ! cudadownload" "$round_trip" $n
  done
  add $size GRAY8 "identity" "identity" $n
  for fmt in GRAY8 RGBA; do
    add $size $fmt "kpatternmatch 64x64 template backend=cuda" \
      "kpatternmatch template-region=100,100,64,64 backend=cuda" $n
  done
  add $size RGBA "kpatternmatch 64x64 template match-on=color backend=cuda" \
    "kpatternmatch template-region=100,100,64,64 match-on=color backend=cuda" $n
done

only_rows 1 2 3   # by size, format and label

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

if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" 16 "* ]]; then
  grep -c FAILED "$out/pipelines.err" 2>/dev/null | sed 's/^/failed pipelines: /'
  exit 0
fi

# 16 pipelines of 1080p RGBA in one process, all frames together, three
# rounds; beside them the bus's limit for a 1080p RGBA frame each way
# (kconv-stream-bench's measure), so that the share of it is same-run
many_rate() {   # element; empty when the long run was not the longer
  local a b
  a=$(run_time "$(sixteen "$1" 100)"); b=$(run_time "$(sixteen "$1" 500)")
  python3 -c "print(f'{16 * 400 / (($b - $a) / 1e6):.0f}' if $b > $a else '')"
}
bus_limit() {
  "${BUILD:-build}/tests/bench/kconv-stream-bench" --only "1920x1080 RGBA, 3x3" \
    --frames 100 2>/dev/null | grep -o 'limit [0-9]* fps' | head -1 | grep -o '[0-9]*'
}
rounds=$(for r in $(seq "${ROUNDS:-3}"); do
  echo "$(many_rate identity),$(many_rate 'kconvfilter kernel=edge backend=cuda'),$(bus_limit)"
done)
echo "16 pipelines, identity,kconvfilter,bus limit by round: $rounds" | tr '\n' ' ' \
  >> "$out/pipelines-rounds.csv"
python3 - "$rounds" "$out/pipelines.csv" <<'EOF'
import statistics, sys
rows = [[float(x) if x else None for x in line.split(",")]
        for line in sys.argv[1].split()]
ident = statistics.median(r[0] for r in rows if r[0])
kconv = statistics.median(r[1] for r in rows if r[1])
limits = [r[2] for r in rows if r[2]]
ratios = [r[1] / r[2] for r in rows if r[1] and r[2]]
share = f"{100 * statistics.median(ratios):.0f}%" if ratios else ""
limit = f"{statistics.median(limits):8.0f}" if limits else "       -"
print(f"{'16x1080p':<10} {'RGBA':<6} {'16 pipelines, identity':<58} {ident:8.0f}")
print(f"{'16x1080p':<10} {'RGBA':<6} {'16 pipelines, kconvfilter edge cuda':<58} "
      f"{kconv:8.0f} {share:>11} of the bus limit")
print(f"{'1080p':<10} {'RGBA':<6} {'bus limit, a frame each way (kconv-stream-bench)':<58} {limit}")
print("  by round (identity, kconvfilter, bus limit):",
      "; ".join(",".join("-" if x is None else f"{x:.0f}" for x in r) for r in rows))
with open(sys.argv[2], "a") as out:
    out.write(f"16x1920x1080,RGBA,16 pipelines identity,{ident:.0f},\n")
    out.write(f"16x1920x1080,RGBA,16 pipelines kconvfilter edge cuda,{kconv:.0f},{share} of bus\n")
EOF
grep -c FAILED "$out/pipelines.err" 2>/dev/null | sed 's/^/failed pipelines: /'
