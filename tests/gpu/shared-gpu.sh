#!/usr/bin/env bash
# The 16-bit match table while another process keeps the same GPU busy
# (the ssd, ncc and zncc table run over and over beside it), plain and
# under compute-sanitizer memcheck: the matchers' work must not depend on
# how the GPU's time is shared.  Buffers zeroed on the legacy stream, which
# the matchers' non-blocking streams do not wait for, once let a first
# 16-bit search read its frame or map before or after the zeros (12 of 342
# cases failed plain, 4 and 18 under memcheck, on an H200).
#   tests/gpu/shared-gpu.sh           (BUILD: the build folder, default build)
set -uo pipefail
b=${BUILD:-build}
t=$b/tests/unit/test-cuda-vs-reference
[ -f .devgst/gst-env.sh ] && . .devgst/gst-env.sh
status=0
(while :; do "$t" 20261122 methods >/dev/null 2>&1; done) &
load=$!
sleep 2
for round in 1 2; do
  echo "round $round, plain:"
  out=$("$t" 8 deepmatch 2>&1) || status=1
  echo "$out" | tail -n 1
  echo "round $round, memcheck:"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$t" 8 deepmatch 2>&1 \
    | grep -E 'passed|ERROR SUMMARY' || status=1
done
kill "$load"
pkill -f "$t 20261122 methods"
wait 2>/dev/null
[ $status = 0 ] && echo "shared GPU: passed" || echo "shared GPU: FAILED"
exit $status
