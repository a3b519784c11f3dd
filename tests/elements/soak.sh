#!/usr/bin/env bash
# The long soak: 100 000 frames through each element with properties changing
# every 250 frames and caps every 2500 (tests/elements/soak.c says what is checked),
# then eight pipelines of each element at once in one process, whose outputs
# must all be the same.  Needs a build (./build, or $BUILD).
#   tests/elements/soak.sh [BACKEND] [FRAMES]     BACKEND: auto (default), cpu, cuda
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
backend=${1:-auto}
frames=${2:-100000}
export GST_PLUGIN_PATH_1_0=$PWD/$build/gst
status=0
for el in kconvfilter kpatternmatch; do
  "$build/tests/elements/soak" --element $el --frames "$frames" --backend "$backend" \
    || status=1
done
# concurrency: 8 pipelines, same frames and property changes, same output
for el in kconvfilter kpatternmatch; do
  "$build/tests/elements/soak" --element $el --frames $((frames / 8)) \
    --backend "$backend" --pipelines 8 || status=1
done
exit $status
