/* GStreamer kconv plugin: presets of kconvfilter
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_PRESET_H
#define KCONV_PRESET_H

#include <gst/gst.h>

G_BEGIN_DECLS
/* GstPreset for kconvfilter: pass to G_IMPLEMENT_INTERFACE. */
void gst_kconv_filter_preset_init (GstPresetInterface * iface);

G_END_DECLS
#endif /* KCONV_PRESET_H */
