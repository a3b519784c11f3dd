#!/usr/bin/env bash
# The Debian package as a user gets it: run as root in a fresh Debian root
# holding nothing but this script and gstreamer1.0-kconv_*.deb, it installs
# the package with apt (and gst-launch-1.0), then, with no GStreamer
# variable set: gst-inspect-1.0 finds the plugin with the release's
# version; kconvfilter filters YUY2; kpatternmatch finds a template read
# from a PNG file by the installed decoder; a preset loads; and
# apt-get remove leaves none of the package's files behind.
#   tests/package-checks.sh       (tests/test-package.sh runs it)
set -euo pipefail
cd "$(dirname "$0")"
say() { echo "package-checks.sh: $*"; }
fail() { echo "package-checks.sh: FAILED: $*" >&2; exit 1; }
env | grep -q '^GST_' && fail "GStreamer variables are set: $(env | grep '^GST_')"
deb=$(ls ./gstreamer1.0-kconv_*.deb)
version=$(dpkg-deb -f "$deb" Version)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "$deb" gstreamer1.0-tools >/dev/null
say "installed $(dpkg-query -W -f='${Package} ${Version}' gstreamer1.0-kconv) from $deb"

info=$(gst-inspect-1.0 kconv) || fail "gst-inspect-1.0 kconv: the plugin is not found"
echo "$info" | grep -E '^  (Version|License|Binary package|Origin URL)'
echo "$info" | grep -q "^  Version *${version%%-*}\$" \
  || fail "the plugin's version is not the package's ($version)"
gst-inspect-1.0 kconvfilter >/dev/null && gst-inspect-1.0 kpatternmatch >/dev/null \
  || fail "gst-inspect-1.0 does not find both elements"
say "gst-inspect-1.0 finds kconvfilter and kpatternmatch, version ${version%%-*}"

gst-launch-1.0 -q videotestsrc num-buffers=10 ! video/x-raw,format=YUY2,width=320,height=240 \
  ! kconvfilter kernel=edge ! fakesink || fail "kconvfilter on YUY2"
say "kconvfilter kernel=edge on YUY2: ran"

# the ball where it starts, as a PNG, then found in the frames that follow
gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=ball ! video/x-raw,width=320,height=240 \
  ! videoconvert ! video/x-raw,format=RGB \
  ! videocrop left=140 top=100 right=140 bottom=100 ! pngenc ! filesink location=/tmp/ball.png
messages=$(gst-launch-1.0 -m videotestsrc num-buffers=3 pattern=ball ! video/x-raw,width=320,height=240 \
  ! kpatternmatch template-location=/tmp/ball.png ! fakesink 2>&1 | grep 'kpatternmatch, x=')
found=$(echo "$messages" | grep -c 'found=(boolean)true' || true)
first=$(echo "$messages" | head -n 1 | grep -o 'x=(int)[0-9]*, y=(int)[0-9]*')
[ "$found" = 3 ] && [ "$first" = "x=(int)140, y=(int)100" ] \
  || fail "kpatternmatch with a template file: found in $found of 3 frames, first at $first"
say "kpatternmatch template-location=ball.png: the ball found in 3 of 3 frames, first where it was cut"

out=$(gst-launch-1.0 videotestsrc num-buffers=3 ! kconvfilter @preset=blur-strong ! fakesink 2>&1) \
  || fail "@preset=blur-strong: $out"
echo "$out" | grep -q "could not set preset" && fail "@preset=blur-strong: $out"
say "kconvfilter @preset=blur-strong: loaded from $(dpkg -L gstreamer1.0-kconv | grep '\.prs$')"

files=$(dpkg -L gstreamer1.0-kconv)
apt-get remove -y -qq gstreamer1.0-kconv >/dev/null
left=$(for f in $files; do
  if [ -d "$f" ]; then
    # a folder only this package made must be gone too
    case $f in */kconv|*/gstreamer1.0-kconv) echo "$f";; esac
  elif [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
done)
[ -z "$left" ] || fail "apt-get remove left: $left"
say "apt-get remove gstreamer1.0-kconv: nothing of it left ($(echo "$files" | wc -l) paths checked)"
