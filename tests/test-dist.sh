#!/usr/bin/env bash
# The release tarball: meson dist makes kconv-VERSION.tar.xz from the
# committed tree, then builds it, runs its tests and installs it in a
# scratch folder (a CPU build, to keep CI's time: CUDA is compiled by
# tests/run-tests.sh).  Checks that NEWS names this version first.
#   tests/test-dist.sh [BUILD_DIR]      (default build-dist)
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-dist}
version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" meson.build | head -n 1)
news=$(awk '/^kconv [0-9]/ { print $2; exit }' NEWS)
[ "$news" = "$version" ] || { echo "test-dist.sh: NEWS begins with $news, meson.build says $version"; exit 1; }
rm -rf "$dir"
meson setup "$dir" -Dcuda=disabled -Dbenchmarks=disabled >"$dir.setup.log" 2>&1 \
  || { tail -n 30 "$dir.setup.log"; exit 1; }
meson dist -C "$dir" --formats xztar || exit 1
ls -l "$dir/meson-dist/kconv-$version.tar.xz" || exit 1
echo "test-dist.sh: kconv-$version.tar.xz built, tested and installed from the tarball"
