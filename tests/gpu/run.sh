#!/usr/bin/env bash
# Runs the GPU checks and the CUDA benchmark on a machine with an NVIDIA GPU,
# from the project root, on a build made elsewhere (./build) and a GStreamer
# runtime unpacked from .devgst (see the device notes in the README).
#   tests/gpu/run.sh [OUTDIR]     results and the plot go to OUTDIR
# BUILD names the build folder (default build); a GPU-only one keeps what
# travels small, with the GPU failures tests/gpu/faults.sh injects compiled
# in:  meson setup build-gpu -Dgpu_archs=90 -Dfault_injection=true
# KERNEL_BENCH=0 skips the kernel benchmarks (device-resident timings);
# FAULT_FRAMES sets the frames of each injected-fault run (default 3000).
set -uo pipefail
b=${BUILD:-build}
out=${1:-gpu-results}
mkdir -p "$out"
status=0
step() { echo; echo "=== $*"; }

# the GStreamer runtime, and FFTW, come from .devgst where the machine lacks them
[ -f .devgst/gst-env.sh ] && . .devgst/gst-env.sh

step device
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

step "core: CUDA against the scalar reference"
$b/tests/unit/test-cuda-vs-reference 2>&1 | tail -n 15 || status=1

step "core: the match table with the GPU's search pruning every case"
for left in 1 0; do
  echo "(the groups left summed a $([ $left = 1 ] && echo block || echo thread) each)"
  KCONV_CUDA_MATCH_PRUNE=1 KCONV_CUDA_MATCH_LEFT=$left \
    $b/tests/unit/test-cuda-vs-reference 20261122 match 2>&1 | tail -n 2 || status=1
done

step "core: the methods table with every 8-bit correlation through the FFT"
KCONV_CUDA_MATCH_FFT=1 $b/tests/unit/test-cuda-vs-reference 20261122 methods 2>&1 \
  | tail -n 2 || status=1

step "core: the same under compute-sanitizer memcheck"
compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
  $b/tests/unit/test-cuda-vs-reference 2>&1 | tail -n 6 || status=1

step "core: synccheck (barriers) over the whole table"
compute-sanitizer --tool synccheck --error-exitcode 9 \
  $b/tests/unit/test-cuda-vs-reference 2>&1 | tail -n 4 || status=1

step "core: the 16-bit match table with another process on the same GPU"
BUILD=$b tests/gpu/shared-gpu.sh | tail -n 5 || status=1

# racecheck is slower by far: the whole table in one run would take well
# over ten minutes, so each path the strategy table lists runs forced, in
# processes at once: the direct, separable and FFT paths with kernels up to
# 121x121 (about 8 minutes on an H200), the warpgroup path up to 61x61, the
# small kernels' rows up to 7x7 (all they take), any other path on the whole
# table; and kconv's own choice up to 31x31
step "core: racecheck (shared-memory hazards)"
racecheck() {
  compute-sanitizer --tool racecheck --error-exitcode 9 \
    $b/tests/unit/test-cuda-vs-reference "$@"
}
KCONV_CUDA_MATCH_PRUNE=1 KCONV_CUDA_MATCH_LEFT=1 racecheck 8 match >"$out/racecheck-prune.log" 2>&1 &
racecheck 9 auto max=31 match >"$out/racecheck-auto.log" 2>&1 &
for p in $($b/tests/unit/test-cuda-vs-reference --list); do
  case $p in
    direct|separable|fft) max=max=121 ;;
    wgmma) max=max=61 ;;
    strips|packed|dp4a|small) max=max=7 ;;
    *) max= ;;
  esac
  racecheck 9 "$p" $max >"$out/racecheck-$p.log" 2>&1 &
done
for job in $(jobs -p); do wait "$job" || status=1; done
tail -q -n 2 "$out"/racecheck-*.log

step "core: filtering regions only: the windows side by side, in turn, under memcheck"
$b/tests/unit/test-filter-rects 2>&1 | tail -n 1 || status=1
KCONV_CUDA_WINDOWS_IN_TURN=1 $b/tests/unit/test-filter-rects cuda 2>&1 | tail -n 1 || status=1
compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
  $b/tests/unit/test-filter-rects cuda 2>&1 | tail -n 3 || status=1

step "core: filtering regions only, CUDA's cases under racecheck"
compute-sanitizer --tool racecheck --error-exitcode 9 \
  $b/tests/unit/test-filter-rects cuda 2>&1 | tail -n 3 || status=1

step "core: memcheck over the match table while two pipelines load the GPU"
for i in 1 2; do
  timeout 300 gst-launch-1.0 -q videotestsrc num-buffers=1000000 \
    ! video/x-raw,format=RGBA,width=1920,height=1080 \
    ! kconvfilter kernel=gaussian kernel-size=31 backend=cuda ! fakesink sync=false &
done
compute-sanitizer --tool memcheck --error-exitcode 9 \
  $b/tests/unit/test-cuda-vs-reference 20261122 match 2>&1 | tail -n 3 || status=1
kill $(jobs -p) 2>/dev/null; wait

if [ -f .devgst/gst-env.sh ]; then
  export GST_PLUGIN_PATH=$PWD/$b/gst GST_PRESET_PATH=$PWD/presets
  step "element: GstHarness tests, backend=cuda against backend=cpu"
  $b/tests/elements/test-kconvfilter 2>&1 | tail -n 5 || status=1
  step "element: frames in flight, every output frame against the CPU"
  $b/tests/elements/test-kconvfilter-streaming 2>&1 | tail -n 5 || status=1
  step "element: frames in flight under compute-sanitizer memcheck"
  GST_CHECKS=test_order_timestamps_and_eos,test_flush_drops_frames_in_flight \
    compute-sanitizer --tool memcheck --error-exitcode 9 \
    $b/tests/elements/test-kconvfilter-streaming 2>&1 | tail -n 4 || status=1
  step "element: every format against the reference, under memcheck"
  GST_CHECKS=test_formats_match_gray_reference \
    compute-sanitizer --tool memcheck --error-exitcode 9 \
    $b/tests/elements/test-kconvfilter 2>&1 | tail -n 4 || status=1
  step "element: kpatternmatch tests (auto picks CUDA here)"
  $b/tests/elements/test-kpatternmatch 2>&1 | tail -n 5 || status=1
  step "element: 300 frames of 4K RGBA through backend=cuda"
  GST_DEBUG=kconvfilter:5 gst-launch-1.0 -q videotestsrc num-buffers=300 \
    ! video/x-raw,format=RGBA,width=3840,height=2160 \
    ! kconvfilter kernel=edge backend=cuda ! fakesink sync=false 2>&1 \
    | grep -m2 -E 'kernel .* on|ERROR' || true
fi

if [ -f .devgst/gst-env.sh ]; then
  step "pipelines as users run them: gst-launch-1.0, queue, identity beside"
  tests/gpu/bench-pipelines.sh "$out" || status=1
  step "where those pipelines' time goes: the source's time per frame, steady state"
  tests/gpu/bench-source-time.sh "$out" || status=1
  step "frames in GStreamer's CUDA memory: same bytes as system memory, nothing over the bus"
  tests/gpu/cuda-memory.sh "$out"; [ $? -eq 1 ] && status=1
  step "frames resident in CUDA memory, beside the system-memory path"
  tests/gpu/bench-cuda-memory.sh "$out" || status=1
  step "GPU faults injected mid-stream, the soak and eight pipelines on CUDA"
  tests/gpu/faults.sh "${FAULT_FRAMES:-3000}" || status=1
  step "several GPUs (skipped on a machine with one)"
  tests/gpu/multi-gpu.sh "$out"; [ $? -eq 1 ] && status=1
  step "streaming benchmark: appsrc ! kconvfilter ! fakesink"
  $b/tests/bench/kconv-stream-bench --csv "$out/stream.csv" | tee "$out/stream.txt" \
    || status=1
  step "sixteen such pipelines at once, one process, beside the bus limit"
  $b/tests/bench/kconv-stream-bench --only "1920x1080 RGBA, 3x3" --pipelines 16 \
    | tee "$out/stream-16.txt" || status=1
  step "the bus alone, its frames copied as one filter and as sixteen copy them"
  $b/tests/bench/kconv-bus-bench --pipelines 16 | tee "$out/bus-16.txt" || status=1
  step "sixteen sources and a busy bus: what the host's memory allows both"
  tests/gpu/bench-sources-beside-bus.sh "$out" | tee "$out/sources-beside-bus.txt" \
    || status=1
fi
[ "${KERNEL_BENCH:-1}" = 0 ] && exit $status

step "kernel benchmarks: kconv-cuda-bench and kmatch-bench, NPP beside"
tests/gpu/bench-kernels.sh "$out" || status=1
exit $status
