#!/usr/bin/env bash
# The kernel benchmarks on a machine with an NVIDIA GPU, from the project
# root, on a build made elsewhere: kconv-cuda-bench (NPP in the same run,
# linked here by hand with this machine's toolkit, which has NPP) and
# kmatch-bench; a Meson build with -Dnpp builds the same peers in.
#   tests/gpu/bench-kernels.sh [OUTDIR]      BUILD names the build folder
set -uo pipefail
b=${BUILD:-build}
out=${1:-gpu-results}
mkdir -p "$out"
[ -f .devgst/gst-env.sh ] && . .devgst/gst-env.sh
status=0

echo "=== kconv-cuda-bench, NPP in the same run"
bench=$b/tests/bench/kconv-cuda-bench
cuda=/usr/local/cuda
if gcc -O2 -DKCONV_BENCH_NPP -Ikernels/include -Ikernels/support -Itests -I$cuda/include \
    tests/bench/kconv-cuda-bench.c tests/bench/bench-peer-npp.c $b/kernels/libkconv-core.a \
    -L$cuda/lib64 -L/tmp/gstroot/usr/lib/x86_64-linux-gnu \
    -l:libfftw3.so.3 -l:libfftw3_threads.so.3 -l:libfftw3f.so.3 -l:libfftw3f_threads.so.3 \
    -lnppif -lnppist -lnppc -lcudart_static -lstdc++ -lm -ldl \
    -lrt -lpthread -o /tmp/kconv-cuda-bench-npp 2>"$out/npp-build.log"; then
  bench=/tmp/kconv-cuda-bench-npp
else
  echo "NPP peer not built (see npp-build.log); running without it"
fi
$bench --csv "$out/bench.csv" --threads "$(nproc)" | tee "$out/bench.txt" \
  || status=1

echo "=== template matching benchmark (CPU with all cores, CUDA)"
gcc -O2 -DKCONV_BENCH_NPP -Ikernels/include -Ikernels/support -Itests -I$cuda/include tests/bench/kmatch-bench.c \
  tests/bench/bench-peer-npp.c $b/kernels/libkconv-core.a \
  -L/tmp/gstroot/usr/lib/x86_64-linux-gnu -l:libfftw3.so.3 -l:libfftw3_threads.so.3 -l:libfftw3f.so.3 -l:libfftw3f_threads.so.3 \
  -L$cuda/lib64 -lnppif -lnppist -lnppc -lcudart_static -lstdc++ -lm \
  -ldl -lrt -lpthread -o /tmp/kmatch-bench 2>>"$out/npp-build.log" \
  && /tmp/kmatch-bench | tee "$out/kmatch-bench.txt" || status=1
echo "=== ssd, ncc and zncc: CUDA in device memory beside NPP (PHOTOS: tests/photos.sh's folder)"
if [ -d "${PHOTOS:-}" ]; then
  gcc -O2 -fopenmp -DKCONV_BENCH_NPP -DKCONV_BENCH_CUDA -Ikernels/include -Ikernels/support \
    -Itests -I$cuda/include tests/bench/kmatch-methods-bench.c tests/bench/bench-peer-npp.c \
    $b/kernels/libkconv-core.a -L$b/kernels/support -lkconv-omp-defaults \
    -L/tmp/gstroot/usr/lib/x86_64-linux-gnu -l:libfftw3.so.3 -l:libfftw3_threads.so.3 -l:libfftw3f.so.3 -l:libfftw3f_threads.so.3 \
    -L$cuda/lib64 -lnppif -lnppist -lnppc -lcudart_static -lstdc++ -lm \
    -ldl -lrt -lpthread -o /tmp/kmatch-methods-bench 2>>"$out/npp-build.log" \
    && LD_LIBRARY_PATH=$b/kernels/support:${LD_LIBRARY_PATH:-} /tmp/kmatch-methods-bench --photos "$PHOTOS" --only cuda | tee "$out/kmatch-methods-bench.txt" \
    || status=1
else
  echo "no PHOTOS folder: skipped"
fi
python3 tests/gpu/plot-bench.py "$out/bench.csv" "$out/bench.png" || true
exit $status
