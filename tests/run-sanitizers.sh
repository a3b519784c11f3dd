#!/usr/bin/env bash
# Memory and undefined-behaviour checks, as CI runs them:
#  - an AddressSanitizer + UndefinedBehaviorSanitizer build (CPU only) in
#    ./build-asan: the core suite with leak detection, the element suite
#    without it (loading GStreamer's plugins in-process, as ASan needs,
#    brings their own one-time allocations: fontconfig, udev, OpenNI2...);
#  - a ThreadSanitizer build (CPU only) in ./build-tsan: many callers at
#    once on the CPU backend's OpenMP teams (test-core-threads), the
#    threaded row copies, the element tests (properties set from other
#    threads while frames flow) and eight pipelines of each element in one
#    process.  Built with clang and its OpenMP runtime, libomp, run with
#    Archer (libomp's tool library, libomp-dev), which tells TSan about
#    OpenMP's barriers: GCC's libgomp is not built for TSan and every
#    region would look like a race.  GLib's locks and GStreamer's
#    reference counts are made visible to TSan by
#    tests/tsan/sync-for-tsan.c, linked into those tests;
#  - a debug build (-O0, CPU only) in ./build-debug: the core and element
#    suites, where nothing is inlined that release builds inline (vector
#    helpers called across AVX and plain code changed the ABI there; the
#    CPU's paths held one by one run under ASan, not again here);
#  - valgrind memcheck over the unit and element tests of ./build (or
#    $BUILD; definite leaks are errors), the CPU and match tables aside
#    (ASan and UBSan run them: under valgrind the match tables alone took
#    20 minutes) and a chosen set of element tests, to keep CI's time
#    (VALGRIND_CHECKS="" runs every element test).
# Exits non-zero on any report.
set -uo pipefail
cd "$(dirname "$0")/.."
pipelines/install-deps.sh --tests --sanitizers || exit 1
status=0
if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dcuda=disabled -Dbenchmarks=disabled >/dev/null || exit 1
fi
meson compile -C build-asan >/dev/null || exit 1
# the test setups (tests/meson.build) set the sanitizers' options; ASan
# wants GStreamer's plugins in the test's process (no registry fork)
meson test -C build-asan --setup sanitize --suite core --print-errorlogs \
  || status=1
meson test -C build-asan --setup sanitizenoleaks --suite element \
  --print-errorlogs || status=1

if [ ! -f build-debug/build.ninja ]; then
  meson setup build-debug -Dbuildtype=debug -Dcuda=disabled \
    -Dbenchmarks=disabled >/dev/null || exit 1
fi
meson compile -C build-debug >/dev/null || exit 1
meson test -C build-debug --suite core --suite element --no-suite paths \
  --print-errorlogs || status=1

if [ ! -f build-tsan/build.ninja ]; then
  CC=clang meson setup build-tsan -Db_sanitize=thread -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dcuda=disabled -Dbenchmarks=disabled \
    >/dev/null || exit 1
fi
meson compile -C build-tsan >/dev/null || exit 1
# The GStreamer plugins the tests use, alone: the run does not depend on
# what else the machine has installed (every plugin is loaded in-process
# under TSan, no registry fork)
system_plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0)
rm -rf build-tsan/plugins && mkdir -p build-tsan/plugins
for p in coreelements app videotestsrc videoconvertscale playback typefindfunctions png jpeg pbtypes; do
  [ -f "$system_plugins/libgst$p.so" ] && ln -s "$system_plugins/libgst$p.so" build-tsan/plugins/
done
# GLib's slices recycle memory where TSan cannot see it: plain malloc
tsan_env=(TSAN_OPTIONS="halt_on_error=1 exitcode=66 detect_deadlocks=0 ignore_noninstrumented_modules=1 suppressions=$PWD/tests/tsan/uninstrumented.supp"
  G_SLICE=always-malloc GST_REGISTRY_FORK=no CK_FORK=no
  OMP_TOOL_LIBRARIES="$(dirname "$(readlink -f "$(command -v clang)")")/../lib/libarcher.so"
  ARCHER_OPTIONS="verbose=0"
  GST_PLUGIN_SYSTEM_PATH_1_0="$PWD/build-tsan/plugins"
  GST_REGISTRY_1_0="$PWD/build-tsan/plugins/registry.bin")
for t in test-core-threads test-copy-rows; do
  env "${tsan_env[@]}" build-tsan/tests/unit/$t >/dev/null \
    || { echo "ThreadSanitizer: $t failed"; status=1; }
done
# the elements, with properties set from other threads while they stream
env "${tsan_env[@]}" meson test -C build-tsan --print-errorlogs \
  test-kconvfilter test-kconvfilter-streaming test-kpatternmatch || status=1
# eight pipelines of each element in one process: the same output from
# each, properties and caps changing
for el in kconvfilter kpatternmatch; do
  env "${tsan_env[@]}" GST_PLUGIN_PATH_1_0="$PWD/build-tsan/gst" \
    build-tsan/tests/elements/soak --element $el --frames 100 --backend cpu \
    --pipelines 8 --property-every 30 --caps-every 60 --rss-bound 1000000 \
    >/dev/null || { echo "ThreadSanitizer: soak of $el failed"; status=1; }
done

checks=${VALGRIND_CHECKS-test_formats_match_gray_reference,test_presets_round_trip,test_invalid_values_refused,test_renegotiation,test_flush_drops_frames_in_flight,test_flushing_seek_in_pipeline,test_stop_releases_frames_in_flight,test_caps_change_drains_first,test_gap_and_zero_duration,test_template_file_not_an_image,test_template_with_transparency,test_formats_planted,test_max_matches,test_methods,test_several_templates}
GST_CHECKS=$checks meson test -C "${BUILD:-build}" --setup valgrind \
  --print-errorlogs test-matrix-text test-named-kernels \
  test-kconvfilter test-kconvfilter-streaming test-kpatternmatch || status=1

# a short soak of each element under valgrind: properties and caps changing
# while frames flow (resident memory means nothing there: no bound)
for el in kconvfilter kpatternmatch; do
  GST_PLUGIN_PATH_1_0=$PWD/${BUILD:-build}/gst G_SLICE=always-malloc \
    valgrind -q --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions=tests/valgrind/kconv.supp \
    --suppressions=/usr/share/glib-2.0/valgrind/glib.supp \
    "${BUILD:-build}/tests/elements/soak" --element $el --frames 600 --backend cpu \
    --property-every 40 --caps-every 200 --rss-bound 100000 || status=1
done
exit $status
