#!/usr/bin/env bash
# Links the benchmarks that time NVIDIA's NPP beside kconv by hand, against
# a build's core archive, as the GPU machine builds them (its toolkit has
# NPP; CI's has not):
#   tests/bench/link-bench.sh BUILD OUTDIR [--npp]
# writes OUTDIR/kconv-cuda-bench, OUTDIR/kmatch-bench and
# OUTDIR/kmatch-methods-bench.  The link lines are the same with and
# without --npp, which adds NPP's peer (its source, define and libraries):
# CI links them without it (test-bench-link), so that the lines the GPU
# machine uses cannot rot.  kconv-cuda-bench needs the CUDA backend: where
# BUILD has none it is left out, and said so.  Any link that fails fails.
set -uo pipefail
b=$(cd "${1:?usage: link-bench.sh BUILD OUTDIR [--npp]}" && pwd)
out=${2:?usage: link-bench.sh BUILD OUTDIR [--npp]}
npp=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA:-/usr/local/cuda}
mkdir -p "$out"

core=$b/kernels/libkconv-core.a
[ -f "$core" ] || { echo "link-bench.sh: no $core (build BUILD first)"; exit 1; }
has_cuda=0
ar t "$core" | grep -q 'backend-cuda' && has_cuda=1
cflags=(-O2 -fopenmp -I"$src/kernels/include" -I"$src/kernels/support" -I"$src/tests")
# the core, the OpenMP settings library it needs (kernels/support), FFTW
# where the build links it (by soname: the GPU machine carries the runtime
# packages, not the -dev ones)
libs=("$core" -L"$b/kernels/support" -lkconv-omp-defaults -Wl,-rpath,"$b/kernels/support")
[ -d /tmp/gstroot/usr/lib/x86_64-linux-gnu ] && libs+=(-L/tmp/gstroot/usr/lib/x86_64-linux-gnu)
if grep -q '"fftw3"' "$b/meson-info/intro-dependencies.json" 2>/dev/null; then
  libs+=(-l:libfftw3.so.3 -l:libfftw3_threads.so.3 -l:libfftw3f.so.3 -l:libfftw3f_threads.so.3)
fi
if [ $has_cuda = 1 ]; then
  cflags+=(-I"$cuda/include")
  libs+=(-L"$cuda/lib64" -lcudart_static -lstdc++)
fi
libs+=(-lm -ldl -lrt -lpthread)
peer_src=() peer_libs=()
if [ "$npp" = --npp ]; then
  [ $has_cuda = 1 ] || { echo "link-bench.sh: NPP needs a build with the CUDA backend"; exit 1; }
  cflags+=(-DKCONV_BENCH_NPP)
  peer_src=("$src/tests/bench/bench-peer-npp.c")
  peer_libs=(-lnppif -lnppist -lnppc)
fi

status=0
# program, and whether it needs the CUDA backend (and times device memory)
for entry in kconv-cuda-bench:cuda kmatch-bench: kmatch-methods-bench:resident; do
  program=${entry%%:*} kind=${entry#*:}
  extra=()
  if [ "$kind" = cuda ] && [ $has_cuda = 0 ]; then
    echo "link-bench.sh: $program left out (the build has no CUDA backend)"
    continue
  fi
  [ "$kind" = resident ] && [ $has_cuda = 1 ] && extra=(-DKCONV_BENCH_CUDA)
  if gcc "${cflags[@]}" "${extra[@]}" "$src/tests/bench/$program.c" "${peer_src[@]}" \
      "${libs[@]:0:1}" "${peer_libs[@]}" "${libs[@]:1}" -o "$out/$program" \
      2>"$out/$program.log"; then
    echo "link-bench.sh: linked $out/$program${npp:+ with NPP}"
  else
    echo "link-bench.sh: linking $program${npp:+ with NPP} failed:"
    tail -n 20 "$out/$program.log"
    status=1
  fi
done
exit $status
