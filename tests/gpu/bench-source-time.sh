#!/usr/bin/env bash
# Where a pipeline's time goes: in `videotestsrc ! queue ! ELEMENT !
# fakesink` the source's thread is the limit, so an element slows the
# pipeline only by what it adds to the source's time per frame.  Each row
# runs under GStreamer's rusage tracer; over frames 20% to 95% of the run
# (start-up left out) it prints the busiest thread's (the source's) CPU
# time and wall time per frame, and the next one's (the element's
# streaming thread) CPU time per frame.  The share of identity is the
# median of the per-round ratios of identity's source time to the row's,
# identity on the same size and format (kpatternmatch runs on GRAY8 and
# RGBA).
#   tests/gpu/bench-source-time.sh [OUTDIR]   (ROUNDS: default 4;
#                                              BACKEND: default cuda;
#                                              ONLY: the rows whose label
#                                              holds one of these words)
# A control row holds five frames in the queue (identity behind
# min-threshold-buffers=5): what more buffers cycling through the source's
# pool cost with no element at all.  GST_PLUGIN_PATH must point at the
# kconv build.
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
raw="$out/source-time-rounds.csv"
echo "round,row,frames,pipeline,source_cpu_us,source_wall_us,element_cpu_us" > "$raw"
be=${BACKEND:-cuda}
held="queue max-size-buffers=8 max-size-bytes=0 max-size-time=0 min-threshold-buffers=5"

rows=()   # caps|frames|label|after the source|environment (optional)
add() { rows+=("$1|$2|$3|$4|${5:-}"); }
hd="format=RGBA,width=1920,height=1080"
uhd="format=RGBA,width=3840,height=2160"
add $hd 2500 "1080p RGBA identity" "queue ! identity"
add $hd 2500 "1080p RGBA identity with five frames held" "$held ! identity"
add $hd 2500 "1080p RGBA edge" "queue ! kconvfilter kernel=edge backend=$be"
add $hd 2500 "1080p RGBA gaussian 5" "queue ! kconvfilter kernel=gaussian kernel-size=5 backend=$be"
add $hd 2500 "1080p RGBA gaussian 31" "queue ! kconvfilter kernel=gaussian kernel-size=31 backend=$be"
add $hd 2500 "1080p RGBA box 31" "queue ! kconvfilter kernel=box kernel-size=31 backend=$be"
add $hd 2500 "1080p RGBA edge frames-in-flight=1" "queue ! kconvfilter kernel=edge backend=$be frames-in-flight=1"
gray="format=GRAY8,width=1920,height=1080"
kpm="kpatternmatch template-region=100,100,64,64 backend=$be"
add $gray 5000 "1080p GRAY8 identity" "queue ! identity"
add $gray 5000 "1080p GRAY8 kpatternmatch 64x64" "queue ! $kpm"
add $hd 2500 "1080p RGBA kpatternmatch 64x64 on luma" "queue ! $kpm"
add $hd 2500 "1080p RGBA kpatternmatch 64x64 on colour" "queue ! $kpm match-on=color"
add $uhd 600 "4K RGBA identity" "queue ! identity"
add $uhd 600 "4K RGBA edge" "queue ! kconvfilter kernel=edge backend=$be"
. "$(dirname "$0")/pipeline-rate.sh"
# GStreamer's own round trip ($round_trip)
add $hd 2500 "1080p RGBA cudaupload ! cudadownload" "queue ! $round_trip"
add $uhd 600 "4K RGBA cudaupload ! cudadownload" "queue ! $round_trip"

only_rows 3   # by label

# busiest thread's CPU and wall us/frame, the next one's CPU us/frame
parse() {  # trace frames
  python3 - "$1" "$2" <<'EOF'
import collections, re, sys
recs = collections.defaultdict(list)
pat = re.compile(r"thread-rusage, thread-id=\(guint64\)(\d+), ts=\(guint64\)(\d+),"
                 r".*?time=\(guint64\)(\d+)")
for line in open(sys.argv[1], errors="replace"):
    m = pat.search(line)
    if m:
        recs[m.group(1)].append((int(m.group(2)), int(m.group(3))))
per = []
for r in recs.values():
    if len(r) < 100:
        continue
    i, j = len(r) // 5, len(r) * 19 // 20
    frames = (j - i) * int(sys.argv[2]) / len(r)   # records a frame are steady
    per.append(((r[j][1] - r[i][1]) / frames / 1e3, (r[j][0] - r[i][0]) / frames / 1e3))
per.sort(reverse=True)
if not per:
    print(",,")
else:
    nxt = per[1][0] if len(per) > 1 else 0
    print(f"{per[0][0]:.0f},{per[0][1]:.0f},{nxt:.0f}")
EOF
}

n=${#rows[@]}
for r in $(seq "${ROUNDS:-4}"); do
  for j in $(seq 0 $((n - 1))); do
    k=$(( (j + r) % n ))
    IFS='|' read -r caps frames label tail envs <<< "${rows[$k]}"
    env $envs GST_TRACERS=rusage GST_DEBUG=GST_TRACER:7 gst-launch-1.0 -q videotestsrc \
      pattern=solid-color num-buffers="$frames" ! \
      "video/x-raw,$caps,framerate=1000/1" ! $tail ! fakesink sync=false \
      > /dev/null 2> "$out/source-time.trace" || echo "FAILED: $label" >&2
    echo "$r,$k,$frames,$label,$(parse "$out/source-time.trace" "$frames")" >> "$raw"
  done
done
rm -f "$out/source-time.trace"

python3 - "$raw" "$out/source-time.csv" <<'EOF'
import csv, statistics, sys
from collections import defaultdict
rows, index = defaultdict(dict), {}
for row in csv.DictReader(open(sys.argv[1])):
    if not row["source_wall_us"]:
        continue
    index[row["pipeline"]] = int(row["row"])
    rows[row["pipeline"]][row["round"]] = row
order = sorted(rows, key=index.get)   # as the rows were added
def med(name, key):
    return statistics.median(float(v[key]) for v in rows[name].values())
print(f"{'pipeline':<42} {'source us/frame':>15} {'source idle':>11} "
      f"{'element CPU':>11} {'of identity':>11}")
with open(sys.argv[2], "w") as out:
    out.write("pipeline,source_wall_us,source_idle_us,element_cpu_us,of_identity\n")
    for name in order:
        wall = med(name, "source_wall_us")
        idle = wall - med(name, "source_cpu_us")
        elem = med(name, "element_cpu_us")
        ident = rows.get(" ".join(name.split(" ")[:2]) + " identity", {})
        ratios = [float(ident[r]["source_wall_us"]) / float(v["source_wall_us"])
                  for r, v in rows[name].items() if r in ident]
        share = f"{100 * statistics.median(ratios):.0f}%" if ratios else ""
        print(f"{name:<42} {wall:15.0f} {idle:11.0f} {elem:11.0f} {share:>11}")
        out.write(f"{name},{wall:.0f},{idle:.0f},{elem:.0f},{share}\n")
EOF
