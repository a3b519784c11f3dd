# Sourced by the example scripts: use the uninstalled build in ./build when
# there is one (an installed kconv is found by GStreamer on its own).
kconv_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -d "$kconv_root/build/gst" ]; then
  export GST_PLUGIN_PATH="$kconv_root/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  export GST_PRESET_PATH="$kconv_root/presets${GST_PRESET_PATH:+:$GST_PRESET_PATH}"
fi
