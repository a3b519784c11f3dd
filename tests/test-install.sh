#!/usr/bin/env bash
# A packaged install (--prefix=/usr) puts the plugin where GStreamer looks
# without any variable, and the presets where GstPreset looks.  Builds a
# small CPU-only copy and installs it under a scratch DESTDIR; the licence
# the plugin declares is GPL with FFTW linked, LGPL without (FFTW=disabled
# in the environment builds without it).
#   tests/test-install.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
src=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
meson setup "$scratch/build" "$src" --prefix=/usr -Dcuda=disabled \
  -Dtests=disabled -Dbenchmarks=disabled ${FFTW:+-Dfftw=$FFTW} >"$scratch/setup.log"
meson compile -C "$scratch/build" >"$scratch/compile.log"
DESTDIR="$scratch/root" meson install -C "$scratch/build" >"$scratch/install.log"

plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0)
plugin="$scratch/root$plugins/libgstkconv.so"
presets="$scratch/root/usr/share/gstreamer-1.0/presets/GstKConvFilter.prs"
[ -f "$plugin" ] || { echo "no plugin at $plugin"; find "$scratch/root" -type f; exit 1; }
[ -f "$presets" ] || { echo "no presets at $presets"; exit 1; }
# kpatternmatch's template decoder, where the plugin looks for it
decoder="$scratch/root/usr/libexec/kconv/kconv-template-decoder"
[ -x "$decoder" ] || { echo "no template decoder at $decoder"; exit 1; }
grep -aq '/usr/libexec/kconv' "$plugin" \
  || { echo "the plugin does not look for the decoder in /usr/libexec/kconv"; exit 1; }
grep -q "GStreamer finds it.*yes" "$scratch/setup.log" \
  || { echo "meson's summary does not say GStreamer finds the plugin"; exit 1; }

# the plugin from that folder loads and registers both elements
GST_REGISTRY_1_0="$scratch/registry.bin" GST_PLUGIN_PATH_1_0= \
GST_PLUGIN_SYSTEM_PATH_1_0="$scratch/root$plugins" \
  gst-inspect-1.0 kconv | grep -E "kconvfilter|kpatternmatch"
# the licence the plugin declares follows what it links: GPL with FFTW
licence=$(GST_REGISTRY_1_0="$scratch/registry.bin" GST_PLUGIN_PATH_1_0= \
  GST_PLUGIN_SYSTEM_PATH_1_0="$scratch/root$plugins" \
  gst-inspect-1.0 kconv | awk '$1 == "License" { print $2 }')
if grep -q "FFTW *: YES" "$scratch/setup.log"; then want=GPL; else want=LGPL; fi
[ "$licence" = "$want" ] || { echo "the plugin declares $licence, want $want"; exit 1; }
# the version gst-inspect shows is the project's, the release NEWS names
# first; who built it is the package-name option
inspect=$(GST_REGISTRY_1_0="$scratch/registry.bin" GST_PLUGIN_PATH_1_0= \
  GST_PLUGIN_SYSTEM_PATH_1_0="$scratch/root$plugins" gst-inspect-1.0 kconv)
version=$(echo "$inspect" | awk '$1 == "Version" { print $2 }')
project=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)
news=$(awk '/^kconv [0-9]/ { print $2; exit }' "$src/NEWS")
[ "$version" = "$project" ] && [ "$version" = "$news" ] \
  || { echo "versions differ: plugin $version, meson.build $project, NEWS $news"; exit 1; }
echo "$inspect" | grep -q "Binary package *kconv source release" \
  || { echo "the plugin's Binary package is not the package-name default"; exit 1; }
echo "installed: $plugin, $presets, $decoder (licence $licence, version $version)"
