#!/usr/bin/env bash
# Prints the path of a natural photograph from scikit-image's data (Debian's
# python3-skimage): the installed copy, or the package fetched with
# apt-get download and unpacked into DIR (default build/skimage) without
# installing it.
#   pipelines/photo.sh NAME [DIR]      e.g. pipelines/photo.sh astronaut
set -euo pipefail
name=${1:?usage: pipelines/photo.sh NAME [DIR]}
dir=${2:-$(cd "$(dirname "$0")/.." && pwd)/build/skimage}
data=/usr/lib/python3/dist-packages/skimage/data
if [ ! -f "$data/$name.png" ]; then
  data="$dir/usr/lib/python3/dist-packages/skimage/data"
  if [ ! -f "$data/$name.png" ]; then
    mkdir -p "$dir"
    (cd "$dir" && apt-get download python3-skimage >/dev/null 2>&1) || {
      echo "photo.sh: cannot fetch python3-skimage" >&2; exit 1; }
    dpkg-deb -x "$dir"/python3-skimage_*.deb "$dir"
    rm -f "$dir"/python3-skimage_*.deb
  fi
fi
[ -f "$data/$name.png" ] || { echo "photo.sh: no photograph $name" >&2; exit 1; }
echo "$data/$name.png"
