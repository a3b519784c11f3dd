#!/usr/bin/env bash
# Frames/s with frames resident in GStreamer's CUDA memory, the way users
# run it (gst-launch-1.0), beside the system-memory streaming path, in one
# run.  Prints a table and writes OUTDIR/cuda-memory.csv.
#   tests/gpu/bench-cuda-memory.sh [OUTDIR]
# Resident: one frame uploaded once, repeated by imagefreeze, so the source
# costs nothing and every frame is already on the GPU:
#   videotestsrc num-buffers=1 ! cudaupload ! video/x-raw(memory:CUDAMemory) !
#     imagefreeze ! queue ! ELEMENT ! fakesink
# (cudaupload prefers system memory when downstream takes both: the caps
# filter after it keeps the frames on the GPU).  SIZES picks the frame sizes
# (default "1920x1080 3840x2160").  The test card is black but for a ball,
# and its 64x64 template black: every black position ties with the first.
# PHOTO=file.png adds the rows on a photograph scaled to each size, the
# template cut from it (pipelines/photo.sh astronaut finds one).  PATHS
# picks the rows (default "resident photo upload system").
# Rates as tests/gpu/pipeline-rate.sh measures them (short-minus-long runs,
# the median of ROUNDS pairs).
set -uo pipefail
out=${1:-gpu-results}
mkdir -p "$out"
csv="$out/cuda-memory.csv"
[ -f "$csv" ] || echo "size,path,pipeline,fps" > "$csv"

RATE_ERR="$out/cuda-memory.err"
. "$(dirname "$0")/pipeline-rate.sh"

row() {  # size path label pipeline n
  case " ${PATHS:-resident photo upload system} " in *" $2 "*) ;; *) return 0 ;; esac
  local fps
  fps=$(pipeline_rate "$4" "$5")
  printf '%-10s %-9s %-58s %8s\n' "$1" "$2" "$3" "$fps"
  echo "$1,$2,$3,$fps" >> "$csv"
}

printf '%-10s %-9s %-58s %8s\n' size path pipeline frames/s
match="kpatternmatch template-region=200,200,64,64"
for size in ${SIZES:-1920x1080 3840x2160}; do
  caps="video/x-raw,format=RGBA,width=${size%x*},height=${size#*x},framerate=1000/1"
  n=10000; [ "$size" = 3840x2160 ] && n=5000
  resident="videotestsrc pattern=ball num-buffers=1 ! $caps ! cudaupload ! video/x-raw(memory:CUDAMemory) ! imagefreeze num-buffers=@N@ ! queue"
  row $size resident "identity" "$resident ! identity ! fakesink sync=false" $n
  row $size resident "kconvfilter kernel=edge (3x3)" "$resident ! kconvfilter kernel=edge ! fakesink sync=false" $n
  row $size resident "kconvfilter gaussian 31x31" "$resident ! kconvfilter kernel=gaussian kernel-size=31 ! fakesink sync=false" $n
  row $size resident "kpatternmatch 64x64" "$resident ! $match ! fakesink sync=false" $n
  row $size resident "kconvfilter ! kconvfilter ! kpatternmatch" "$resident ! kconvfilter kernel=edge ! kconvfilter kernel=gaussian kernel-size=5 ! $match ! fakesink sync=false" $n
  if [ -n "${PHOTO:-}" ]; then
    w=${size%x*} h=${size#*x}
    cut="kpatternmatch template-region=$((w / 3)),$((h / 2)),64,64"
    photo="filesrc location=$PHOTO ! pngdec ! videoconvert ! videoscale ! video/x-raw,format=RGBA,width=$w,height=$h ! cudaupload ! video/x-raw(memory:CUDAMemory) ! imagefreeze num-buffers=@N@ ! queue"
    row $size photo "identity" "$photo ! identity ! fakesink sync=false" $n
    row $size photo "kpatternmatch 64x64" "$photo ! $cut ! fakesink sync=false" $n
    row $size photo "kconvfilter ! kconvfilter ! kpatternmatch" "$photo ! kconvfilter kernel=edge ! kconvfilter kernel=gaussian kernel-size=5 ! $cut ! fakesink sync=false" $n
  fi
  # uploaded and downloaded every frame
  m=300; [ "$size" = 3840x2160 ] && m=100
  src="videotestsrc pattern=solid-color num-buffers=@N@ ! $caps ! queue"
  row $size upload "cudaupload ! cudadownload" "$src ! $round_trip ! fakesink sync=false" $m
  row $size upload "cudaupload ! 2 kconvfilter ! kpatternmatch ! cudadownload" "$src ! cudaupload ! video/x-raw(memory:CUDAMemory) ! kconvfilter kernel=edge ! kconvfilter kernel=gaussian kernel-size=5 ! $match ! cudadownload ! fakesink sync=false" $m
  # system memory, frames in flight
  row $size system "identity" "$src ! identity ! fakesink sync=false" $m
  row $size system "kconvfilter kernel=edge" "$src ! kconvfilter kernel=edge ! fakesink sync=false" $m
  row $size system "kconvfilter gaussian 31x31" "$src ! kconvfilter kernel=gaussian kernel-size=31 ! fakesink sync=false" $m
  row $size system "kconvfilter ! kconvfilter ! kpatternmatch" "$src ! kconvfilter kernel=edge ! kconvfilter kernel=gaussian kernel-size=5 ! $match ! fakesink sync=false" $m
done
[ -s "$out/cuda-memory.err" ] && { echo "errors:"; sort -u "$out/cuda-memory.err" | head; }
