#!/usr/bin/env bash
# The README's install from the source, as written, after the quick start
# (CI runs it in a fresh root, between the quick start and the tests): the
# two lines under "From the source" (sudo installed first where it is
# missing, as on a Debian machine), then, with no GStreamer variable set,
# gst-inspect-1.0 finds both elements installed in /usr and kconvfilter
# runs.  Removes what the install put in /usr afterwards.
#   tests/test-readme-install.sh
set -uo pipefail
cd "$(dirname "$0")/.."
lines=$(tests/readme-block.sh "From the source")
[ "$(echo "$lines" | grep -c .)" = 2 ] || { echo "test-readme-install.sh: want 2 lines, got: $lines"; exit 1; }
if ! command -v sudo >/dev/null; then
  apt-get install -y -qq sudo >/dev/null || { echo "test-readme-install.sh: no sudo"; exit 1; }
fi
while IFS= read -r l; do
  echo "test-readme-install.sh: $l"
  bash -c "$l" >build-install.log 2>&1 || { tail -n 30 build-install.log; exit 1; }
done <<<"$lines"
status=0
for e in kconvfilter kpatternmatch; do
  env -u GST_PLUGIN_PATH -u GST_PRESET_PATH gst-inspect-1.0 "$e" >/dev/null \
    || { echo "test-readme-install.sh: gst-inspect-1.0 $e: not found after the install"; status=1; }
done
env -u GST_PLUGIN_PATH -u GST_PRESET_PATH gst-launch-1.0 -q videotestsrc num-buffers=5 \
  ! kconvfilter @preset=edge ! fakesink || status=1
where=$(env -u GST_PLUGIN_PATH gst-inspect-1.0 kconv | awk '$1 == "Filename" { print $2 }')
echo "test-readme-install.sh: installed, found by GStreamer at $where"
sudo ninja -C build-install uninstall >/dev/null || status=1
exit $status
