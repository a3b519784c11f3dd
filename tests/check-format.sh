#!/bin/sh
# The plugin's GStreamer code (gst/*.c) is in GStreamer's style: what
# tests/gst-indent would change is printed and fails the test.  Skipped
# (77) where GNU indent is not installed.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
command -v indent >/dev/null 2>&1 || { echo "SKIP: GNU indent not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$src"/gst/*.c; do
  "$src/tests/gst-indent" -o "$tmp/out.c" "$f" 2>"$tmp/err" || { cat "$tmp/err"; status=1; continue; }
  if ! diff -u "$f" "$tmp/out.c" >"$tmp/diff"; then
    echo "${f#$src/} is not in GStreamer's style (tests/gst-indent $f):"
    cat "$tmp/diff"
    status=1
  fi
done
[ $status -eq 0 ] && echo "gst/*.c: GStreamer style"
exit $status
