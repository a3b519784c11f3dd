#!/usr/bin/env bash
# libFuzzer over what the elements take from users: the matrix property, the
# regions of kpatternmatch, its template image files (the decode that
# kconv-template-decoder runs, here in-process; leaks not counted there:
# GStreamer's plugins keep one-time allocations), and buffers through both elements with random
# caps, sizes and video metas (the plugin built with clang and the
# sanitizers in build-fuzz/plugin, loaded by the target).  Builds each target with clang
# (AddressSanitizer and UBSan on) into ./build-fuzz, starts from the corpus
# of nasty inputs in tests/fuzz/, and runs it for SECONDS (default 20).
# A crash, a sanitizer report or a broken promise (abort) fails; the input
# that did it is left in build-fuzz/.
#   tests/run-fuzz.sh [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
pipelines/install-deps.sh --sanitizers || exit 1
seconds=${1:-20}
out=build-fuzz
mkdir -p "$out"
flags="-O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
  -Ikernels/include"
status=0
build() {   # target, sources...
  local t=$1; shift
  # shellcheck disable=SC2086
  clang $flags "tests/fuzz/$t.c" "$@" -lm -lpthread -o "$out/$t" || return 1
}
# (the named kernels say why they fail through the error model)
build fuzz-matrix kernels/core/kconv-matrix.c kernels/support/kconv-error.c \
  -Ikernels/support || exit 1
build fuzz-region kernels/core/kmatch-region.c || exit 1
# shellcheck disable=SC2046
build fuzz-template gst/kmatch-template.c gst/kmatch-template-pack.c gst/kmatch-template-decode.c \
  kernels/core/kmatch-region.c -DKCONV_LIBEXECDIR=\"/nonexistent\" \
  -Igst $(pkg-config --cflags --libs gstreamer-app-1.0 gstreamer-video-1.0) \
  || exit 1
# the plugin, instrumented, for fuzz-buffers (CPU backend)
if [ ! -f "$out/plugin/build.ninja" ]; then
  CC=clang meson setup "$out/plugin" -Dcuda=disabled -Dtests=disabled \
    -Dbenchmarks=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dc_args=-fsanitize=fuzzer-no-link \
    >"$out/plugin-setup.log" 2>&1 \
    || { echo "meson setup of the instrumented plugin failed:"; tail -n 30 "$out/plugin-setup.log"; exit 1; }
fi
meson compile -C "$out/plugin" >"$out/plugin-compile.log" 2>&1 \
  || { echo "the instrumented plugin did not build:"; tail -n 30 "$out/plugin-compile.log"; exit 1; }
export KCONV_FUZZ_PLUGIN_DIR=$PWD/$out/plugin/gst
# shellcheck disable=SC2046
build fuzz-buffers -Itests/elements $(pkg-config --cflags --libs gstreamer-check-1.0 \
  gstreamer-video-1.0) || exit 1
for t in fuzz-matrix fuzz-region fuzz-template fuzz-buffers; do
  extra="" asan=""
  # GStreamer's targets: no leak check, per input (-detect_leaks) nor at
  # exit (detect_leaks in ASAN_OPTIONS; there clang 14's LeakSanitizer also
  # misreads the dynamic TLS of the OpenMP runtime's threads under glibc
  # 2.36 and dies: "Tracer caught signal 11", an empty input blamed)
  case $t in
    fuzz-template|fuzz-buffers)
      extra="-detect_leaks=0 -rss_limit_mb=4096"
      asan="detect_leaks=0" ;;
  esac
  corpus=$PWD/tests/fuzz/corpus-${t#fuzz-}
  work="$out/$t-corpus"
  mkdir -p "$work"
  # shellcheck disable=SC2086
  (cd "$out" && ASAN_OPTIONS=${asan:-${ASAN_OPTIONS:-}} "./$t" \
      -max_total_time="$seconds" -max_len=4096 $extra \
      -print_final_stats=1 "$t-corpus" "$corpus" 2>"$t.log")
  rc=$?
  runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" \
    | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    echo "$t: FAILED (see $out/$t.log)"; tail -n 30 "$out/$t.log"; status=1
  else
    echo "$t: ${runs:-?} inputs in ${seconds} s, no crash"
  fi
done
exit $status
