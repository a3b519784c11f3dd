/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstkconvbase.h"

G_BEGIN_DECLS
#define GST_TYPE_KCONV_FILTER (gst_kconv_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstKConvFilter, gst_kconv_filter, GST, KCONV_FILTER,
    GstKConvBase);

GST_ELEMENT_REGISTER_DECLARE (kconvfilter);

G_END_DECLS
