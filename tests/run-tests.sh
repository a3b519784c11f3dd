#!/usr/bin/env bash
# Installs dependencies, builds and runs every test; ends with one line,
# "N passed, N failed, N skipped", counted over the test programs, and
# names the skipped ones with the reason each gave.
set -uo pipefail
cd "$(dirname "$0")/.."
pipelines/install-deps.sh --tests || { echo "run-tests.sh: installing the packages failed" >&2; exit 1; }
pipelines/build.sh || { echo "run-tests.sh: the build failed" >&2; exit 1; }
# photographs for the matcher's table (fetched from Debian's python3-skimage)
if tests/photos.sh build/photos; then
  export KCONV_PHOTOS=$PWD/build/photos
else
  echo "run-tests.sh: no photographs; the matcher's table runs without them"
fi
# the sample media the README's launch lines read (test-readme-lines)
pipelines/samples.sh build/samples || echo "run-tests.sh: no sample media; test-readme-lines is skipped"
# meson prints a line as each test ends; the longest (test-readme-lines,
# the valgrind runs) take over a minute, so a line every 5 s says how far
# the run is meanwhile
. pipelines/progress.sh
tests_ended() {
  local n
  n=$(grep -o '^ *[0-9]*/[0-9]* ' build/run-tests.log | tail -n 1 | tr -d ' ')
  echo "${n:-0/?} ended"
}
: >build/run-tests.log
progress_start "run-tests.sh: testing" tests_ended
meson test -C build --print-errorlogs | tee build/run-tests.log
status=$?
progress_stop
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
skipped = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t["result"]
    key = "passed" if r == "OK" else "skipped" if r == "SKIP" else "failed"
    counts[key] += 1
    if key == "skipped":
        said = [l.strip() for l in (t.get("stdout") or "").splitlines() if l.strip()]
        skipped.append(f"{t['name']} ({said[-1] if said else 'no reason given'})")
summary = f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
print(summary + (": " + "; ".join(skipped) if skipped else ""))
PY
exit $status
