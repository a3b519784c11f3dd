#!/usr/bin/env bash
# The release tarball: meson dist makes kconv-VERSION.tar.xz from the
# committed tree; then, unpacked in a scratch folder, it configures (a CPU
# build), builds, passes the core, element and install suites (the rest
# of the suite runs from the tree in tests/run-tests.sh) and installs.
# Checks that NEWS names this version first.
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
meson dist -C "$dir" --formats xztar --no-tests || exit 1
tarball=$dir/meson-dist/kconv-$version.tar.xz
ls -l "$tarball" || exit 1
check=$dir/dist-check
mkdir -p "$check"
tar -xf "$tarball" -C "$check" || exit 1
src=$check/kconv-$version
[ -f "$src/meson.build" ] && [ -d "$src/debian" ] && [ -f "$src/NEWS" ] \
  || { echo "test-dist.sh: the tarball lacks meson.build, debian/ or NEWS"; exit 1; }
meson setup "$check/build" "$src" -Dcuda=disabled -Dbenchmarks=disabled \
  >"$check/setup.log" 2>&1 || { tail -n 30 "$check/setup.log"; exit 1; }
meson compile -C "$check/build" >"$check/compile.log" 2>&1 \
  || { tail -n 30 "$check/compile.log"; exit 1; }
meson test -C "$check/build" --suite core --suite element --suite install \
  --no-suite paths --no-suite large --print-errorlogs || exit 1
DESTDIR=$PWD/$check/root meson install -C "$check/build" >"$check/install.log" 2>&1 \
  || { tail -n 30 "$check/install.log"; exit 1; }
echo "test-dist.sh: kconv-$version.tar.xz made, built, tested and installed"
