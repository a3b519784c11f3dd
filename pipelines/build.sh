#!/usr/bin/env bash
# Configures (once) and builds kconv in ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null
