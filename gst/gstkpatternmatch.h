/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstkconvbase.h"

G_BEGIN_DECLS
#define GST_TYPE_KPATTERN_MATCH (gst_kpattern_match_get_type ())
G_DECLARE_FINAL_TYPE (GstKPatternMatch, gst_kpattern_match, GST,
    KPATTERN_MATCH, GstKConvBase);

GST_ELEMENT_REGISTER_DECLARE (kpatternmatch);

G_END_DECLS
