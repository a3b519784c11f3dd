# Sourced by the gst-launch-1.0 benchmarks in tests/gpu/: frames/s of a
# pipeline, and the rows a run keeps.  RATE_ERR names the file failures
# are appended to.

# Keeps the rows of the array rows (fields split by |) where one of the
# fields numbered (from 1) holds one of the words of ONLY; all when ONLY
# is empty.
only_rows() {  # field numbers
  [ -n "${ONLY:-}" ] || return 0
  local kept=() row word text f
  local -a field
  for row in "${rows[@]}"; do
    IFS='|' read -r -a field <<< "$row"
    text=""
    for f in "$@"; do text="$text ${field[$((f - 1))]}"; done
    for word in $ONLY; do
      case "$text" in *"$word"*) kept+=("$row"); break ;; esac
    done
  done
  rows=("${kept[@]}")
}

# GStreamer's own CUDA round trip, the same bytes over the bus both ways.
# The caps filter makes cudaupload upload: cudadownload takes system
# memory too, and without it both pass the frames through untouched.
round_trip="cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload"

# microseconds that a pipeline takes
run_time() {
  local t0 t1
  t0=$(date +%s%N)
  gst-launch-1.0 -q $1 >/dev/null 2>>"$RATE_ERR" || echo "FAILED: $1" >>"$RATE_ERR"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}

# frames/s of PIPELINE (with @N@ where the frame count goes): (N - N/5)
# frames over the difference between a run of N and one of N/5, so that
# start-up cancels; the median of ROUNDS (default 3) such pairs
pipeline_rate() {  # pipeline, N
  local p=$1 n=$2 short=$(($2 / 5)) a b rates="" r
  for r in $(seq "${ROUNDS:-3}"); do
    a=$(run_time "${p//@N@/$short}")
    b=$(run_time "${p//@N@/$n}")
    rates="$rates $(python3 -c "print(($n - $short) / max(($b - $a) / 1e6, 1e-6))")"
  done
  python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.0f}')" $rates
}

# sixteen 1080p RGBA pipelines in one gst-launch-1.0 description, each
# videotestsrc ! queue ! ELEMENT ! fakesink with FRAMES frames
sixteen() {  # element, frames
  local desc="" i
  for i in $(seq 16); do
    desc="$desc videotestsrc pattern=solid-color num-buffers=$2 ! video/x-raw,format=RGBA,width=1920,height=1080,framerate=1000/1 ! queue ! $1 ! fakesink sync=false"
  done
  echo "$desc"
}
