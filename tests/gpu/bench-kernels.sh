#!/usr/bin/env bash
# The kernel benchmarks on a machine with an NVIDIA GPU, from the project
# root, on a build made elsewhere: kconv-cuda-bench, kmatch-bench and
# kmatch-methods-bench, NPP in the same run (linked here by
# tests/bench/link-bench.sh with this machine's toolkit, which has NPP; CI
# links the same lines without it).  A peer that does not link or does not
# run is a failure of the script.
#   tests/gpu/bench-kernels.sh [OUTDIR]      BUILD names the build folder
set -uo pipefail
b=${BUILD:-build}
out=${1:-gpu-results}
mkdir -p "$out"
[ -f .devgst/gst-env.sh ] && . .devgst/gst-env.sh
status=0

# NPP is the peer: a benchmark that cannot link it is a failure, not a
# run without it
echo "=== linking the benchmarks with NPP (tests/bench/link-bench.sh)"
bin=$out/bin
tests/bench/link-bench.sh "$b" "$bin" --npp || { echo "bench-kernels.sh: FAILED: the NPP peer did not link"; exit 1; }

echo "=== kconv-cuda-bench, NPP in the same run"
"$bin/kconv-cuda-bench" --csv "$out/bench.csv" --threads "$(nproc)" | tee "$out/bench.txt" \
  || status=1
grep -q '^peer: NPP' "$out/bench.txt" || { echo "bench-kernels.sh: FAILED: kconv-cuda-bench ran without NPP"; status=1; }

echo "=== template matching benchmark (CPU with all cores, CUDA, NPP)"
"$bin/kmatch-bench" | tee "$out/kmatch-bench.txt" || status=1
if ! grep -q '^  NPP ' "$out/kmatch-bench.txt" || grep -q 'NPP: failed' "$out/kmatch-bench.txt"; then
  echo "bench-kernels.sh: FAILED: kmatch-bench has no NPP timing"; status=1
fi
echo "=== ssd, ncc and zncc: CUDA in device memory beside NPP (PHOTOS: tests/photos.sh's folder)"
if [ -d "${PHOTOS:-}" ]; then
  "$bin/kmatch-methods-bench" --photos "$PHOTOS" --only cuda | tee "$out/kmatch-methods-bench.txt" \
    || status=1
else
  echo "bench-kernels.sh: FAILED: no PHOTOS folder for the methods' run"; status=1
fi
python3 tests/gpu/plot-bench.py "$out/bench.csv" "$out/bench.png" || true
exit $status
