#!/usr/bin/env bash
# kconvfilter on several GPUs of one host: the same bits from each GPU, from
# a chain through two GPUs and from the chain on one, and the throughput of
# one stream per GPU beside both streams on GPU 0.
#   tests/gpu/multi-gpu.sh [OUTDIR]      (GST_PLUGIN_PATH: the kconv build)
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
status=0
n_gpus=$(nvidia-smi -L | wc -l)
echo "GPUs: $n_gpus"
[ "$n_gpus" -ge 2 ] || { echo "needs two GPUs"; exit 77; }

caps="video/x-raw,format=RGBA,width=1280,height=720"
src="videotestsrc pattern=smpte num-buffers=30 ! $caps"
frames() {   # elements, file
  gst-launch-1.0 -q $src ! $1 ! filesink location="$2" 2>&1 | tail -n 3
}
same() {     # label, file a, file b
  if cmp -s "$2" "$3" && [ -s "$2" ]; then echo "same bits: $1"
  else echo "DIFFERENT: $1"; status=1; fi
}

for k in "kernel=edge" "matrix=\"$(python3 -c 'import random; random.seed(7); print("; ".join(" ".join(f"{random.uniform(-1,1):.3f}" for _ in range(15)) for _ in range(15)))')\"" \
    "kernel=gaussian kernel-size=31"; do
  frames "kconvfilter $k backend=cuda device-id=0" "$out/g0.raw"
  frames "kconvfilter $k backend=cuda device-id=1" "$out/g1.raw"
  same "${k:0:40} on GPU 0 and GPU 1" "$out/g0.raw" "$out/g1.raw"
done
chain() {    # device of the first, device of the second
  echo "kconvfilter kernel=edge backend=cuda device-id=$1 ! kconvfilter kernel=gaussian kernel-size=31 backend=cuda device-id=$2"
}
frames "$(chain 0 1)" "$out/c01.raw"
frames "$(chain 0 0)" "$out/c00.raw"
frames "$(chain 1 0)" "$out/c10.raw"
same "edge on GPU 0 then gaussian 31 on GPU 1, against both on GPU 0" "$out/c01.raw" "$out/c00.raw"
same "edge on GPU 1 then gaussian 31 on GPU 0, against both on GPU 0" "$out/c10.raw" "$out/c00.raw"

# throughput: 1080p RGBA streams, each rate from two lengths (start-up cancels)
stream() {   # device, frames
  echo "videotestsrc pattern=solid-color num-buffers=$2 ! video/x-raw,format=RGBA,width=1920,height=1080,framerate=1000/1 ! queue ! kconvfilter kernel=edge backend=cuda device-id=$1 ! fakesink sync=false"
}
secs() { local t0; t0=$(date +%s%N); gst-launch-1.0 -q $1 >/dev/null 2>&1 || status=1; echo $(( ($(date +%s%N) - t0) / 1000 )); }
rate() {     # streams, devices...
  local n=$1; shift
  local short="" long="" d
  for d in "$@"; do short="$short $(stream "$d" 240)"; long="$long $(stream "$d" 1200)"; done
  local a b
  a=$(secs "$short"); b=$(secs "$long")
  python3 -c "print(f'{$n * 960 / (($b - $a) / 1e6):.0f}')"
}
printf '%-40s %s\n' "1080p RGBA edge, streams" "frames/s, all streams together"
for r in 1 2; do
  printf '%-40s %s\n' "one stream, GPU 0" "$(rate 1 0)"
  printf '%-40s %s\n' "one stream, GPU 1" "$(rate 1 1)"
  printf '%-40s %s\n' "two streams, both on GPU 0" "$(rate 2 0 0)"
  printf '%-40s %s\n' "two streams, GPU 0 and GPU 1" "$(rate 2 0 1)"
done
exit $status
