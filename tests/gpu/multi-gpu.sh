#!/usr/bin/env bash
# kconvfilter on several GPUs of one host: the same bits from each GPU, from
# a chain through two GPUs and from the chain on one, and the throughput of
# one stream per GPU beside both streams on GPU 0.
#   tests/gpu/multi-gpu.sh [OUTDIR]      (GST_PLUGIN_PATH: the kconv build)
# Element properties travel as single arguments ("matrix=-1 2; 3 4"):
# gst-launch-1.0 keeps each argument's spaces.
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
status=0
n_gpus=$(nvidia-smi -L | wc -l)
echo "GPUs: $n_gpus"
[ "$n_gpus" -ge 2 ] || { echo "needs two GPUs"; exit 77; }

# a random non-separable kernel, as the matrix property's text
random_matrix() {   # size, seed
  python3 -c "import random; random.seed($2); print('; '.join(' '.join(f'{random.uniform(-1, 1):.3f}' for _ in range($1)) for _ in range($1)))"
}
frames() {   # file, then the elements' arguments
  local file=$1; shift
  rm -f "$file"
  gst-launch-1.0 -q videotestsrc pattern=smpte num-buffers=30 \
    ! video/x-raw,format=RGBA,width=1280,height=720 ! "$@" \
    ! filesink location="$file" 2>&1 | tail -n 3
}
same() {     # label, file a, file b
  if [ -s "$2" ] && cmp -s "$2" "$3"; then echo "same bits: $1"
  else echo "DIFFERENT: $1"; status=1; fi
}

m15="matrix=$(random_matrix 15 7)"
for k in edge m15 gauss; do
  case $k in
    edge) set -- kernel=edge ;;
    m15) set -- "$m15" ;;
    gauss) set -- kernel=gaussian kernel-size=31 ;;
  esac
  frames "$out/g0.raw" kconvfilter "$@" backend=cuda device-id=0
  frames "$out/g1.raw" kconvfilter "$@" backend=cuda device-id=1
  same "$k on GPU 0 and GPU 1" "$out/g0.raw" "$out/g1.raw"
done
chain() {    # file, device of the first, device of the second
  frames "$1" kconvfilter kernel=edge backend=cuda device-id="$2" \
    ! kconvfilter kernel=gaussian kernel-size=31 backend=cuda device-id="$3"
}
chain "$out/c00.raw" 0 0
chain "$out/c01.raw" 0 1
chain "$out/c10.raw" 1 0
same "edge on GPU 0 then gaussian 31 on GPU 1, against both on GPU 0" "$out/c01.raw" "$out/c00.raw"
same "edge on GPU 1 then gaussian 31 on GPU 0, against both on GPU 0" "$out/c10.raw" "$out/c00.raw"

# kpatternmatch: the same matches from either GPU
matches() {  # device
  gst-launch-1.0 -m videotestsrc pattern=ball num-buffers=20 \
    ! video/x-raw,format=RGBA,width=640,height=480 \
    ! kpatternmatch template-region=300,220,40,40 backend=cuda device-id="$1" \
    ! fakesink 2>&1 | grep -o 'kpatternmatch, x=(int)[0-9]*, y=(int)[0-9]*'
}
matches 0 >"$out/m0.txt"
matches 1 >"$out/m1.txt"
same "kpatternmatch on GPU 0 and GPU 1 ($(wc -l <"$out/m0.txt") matches)" \
  "$out/m0.txt" "$out/m1.txt"

# throughput of 1080p RGBA edge streams, each rate from two lengths
# (start-up cancels).  (At this size the host's sources, not the GPUs, are
# the limit; a heavy kernel whose first frame plans an FFT needs runs long
# enough for the planning to vanish, which this does not try.)
secs() {     # microseconds a gst-launch takes; its arguments follow
  local t0; t0=$(date +%s%N)
  gst-launch-1.0 -q "$@" >/dev/null 2>"$out/secs.err" \
    || { echo "a pipeline failed: $(grep -m1 -E 'ERROR|error' "$out/secs.err" | cut -c1-200)" >&2; }
  echo $(( ($(date +%s%N) - t0) / 1000 ))
}
rate() {     # frames, format, filter (one argument), devices...
  local n=$1 fmt=$2 filter=$3; shift 3
  local -a short=() long=()
  local d
  for d in "$@"; do
    for len in $((n / 5)) "$n"; do
      local -a one=(videotestsrc pattern=solid-color num-buffers="$len"
        ! "video/x-raw,format=$fmt,width=$W,height=$H,framerate=1000/1"
        ! queue ! kconvfilter "$filter" backend=cuda device-id="$d"
        ! fakesink sync=false)
      if [ "$len" = "$n" ]; then long+=("${one[@]}"); else short+=("${one[@]}"); fi
    done
  done
  local a b
  a=$(secs "${short[@]}"); b=$(secs "${long[@]}")
  python3 -c "print(f'{$# * ($n - $n // 5) / (($b - $a) / 1e6):.0f}')"
}
W=1920 H=1080 fmt=RGBA filter=kernel=edge n=1200
printf '%-44s %s\n' "${W}x$H $fmt $filter" "frames/s, all streams together"
for r in 1 2; do
  printf '%-44s %s\n' "  one stream, GPU 0" "$(rate "$n" "$fmt" "$filter" 0)"
  printf '%-44s %s\n' "  one stream, GPU 1" "$(rate "$n" "$fmt" "$filter" 1)"
  printf '%-44s %s\n' "  two streams, both on GPU 0" "$(rate "$n" "$fmt" "$filter" 0 0)"
  printf '%-44s %s\n' "  two streams, GPU 0 and GPU 1" "$(rate "$n" "$fmt" "$filter" 0 1)"
done
exit $status
