#!/usr/bin/env bash
# The Debian package, end to end, in two fresh Debian 12 roots (needs root,
# as tests/fresh-machine.sh):
#  1. a root with a copy of this tree runs the README's three package lines
#     as written (sudo installed first, as on a Debian machine), with
#     DEB_BUILD_OPTIONS=nocheck (the tests run elsewhere in CI) and the
#     nocuda profile unless the toolkit is there, then lintian on the result
#     (an error fails; every tag is printed);
#  2. a second root with nothing but the .deb and tests/package-checks.sh
#     installs it with apt and checks it (see there).
#   tests/test-package.sh WORKDIR      (roots WORKDIR/build-root, WORKDIR/install-root)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: tests/test-package.sh WORKDIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
# the README's lines under "The Debian package", as written
lines=$("$src/tests/readme-block.sh" "The Debian package")
[ "$(echo "$lines" | grep -c .)" = 3 ] || { echo "test-package.sh: want 3 lines in the README, got: $lines"; exit 1; }
cmds=("apt-get update -qq && apt-get install -y -qq sudo >/dev/null")
while IFS= read -r l; do cmds+=("$l"); done <<<"$lines"
cmds+=("apt-get install -y -qq --no-install-recommends lintian >/dev/null \
  && lintian --info --pedantic --fail-on error ../kconv_*.changes; rc=\$?; \
  echo \"lintian: exit \$rc\"; exit \$rc")
FRESH_ENV="DEB_BUILD_OPTIONS=nocheck DEB_BUILD_PROFILES=nocuda" \
  "$src/tests/fresh-machine.sh" "$work/build-root" "${cmds[@]}" || exit 1
deb=$(ls "$work"/build-root/gstreamer1.0-kconv_*.deb | grep -v dbgsym)
echo "test-package.sh: built $(basename "$deb") ($(du -k "$deb" | cut -f1) kB)"
FRESH_COPY="$deb $src/tests/package-checks.sh" \
  "$src/tests/fresh-machine.sh" "$work/install-root" ./package-checks.sh || exit 1
