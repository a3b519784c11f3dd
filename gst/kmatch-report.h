/* GStreamer kconv plugin: how kpatternmatch reports what it found
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_REPORT_H
#define KMATCH_REPORT_H

#include <gst/video/video.h>
#include "kmatch.h"

G_BEGIN_DECLS
/* The element message "kpatternmatch" of one template's search of a frame:
 * template (its index) and template-name, found (n > 0:
 * matches under the threshold), x, y, x-subpixel, y-subpixel, method,
 * score and the method's own value (sad, ssd, or correlation for ncc and
 * zncc) of the best position
 * searched, found or not (best NULL: none could be searched, x = y = -1
 * and score 1), width, height, the frame's times, and with max_matches > 1
 * the list of the n matches. */
    GstMessage * gst_kmatch_report_message (GstObject * src,
    const GstSegment * segment, GstBuffer * buf, const KMatchPosition * best,
    const KMatchPosition * matches, gint n, gint w, gint h,
    KMatchMethod method, gint max_matches, guint index, const gchar * name);

/* A GstVideoRegionOfInterestMeta per match on buf, best first, with ids
 * after any already there (from another detector upstream, or another
 * template), the template, the method, score and the method's own value
 * as a parameter. */
void gst_kmatch_report_metas (GstBuffer * buf, const KMatchPosition * matches,
    gint n, gint w, gint h, KMatchMethod method, guint index,
    const gchar * name);

G_END_DECLS
#endif /* KMATCH_REPORT_H */
