/* GStreamer kconv plugin: how kpatternmatch reports what it found
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_REPORT_H
#define KMATCH_REPORT_H

#include <gst/video/video.h>
#include "kmatch.h"

G_BEGIN_DECLS
/* The size a match was found at: the template's, or with scales a
 * resized copy's (scale its factor) */
    typedef struct
{
  gint width, height;
  gdouble scale;
} GstKMatchBox;

/* The element message "kpatternmatch" of one template's search of a frame:
 * template (its index) and template-name, found (n > 0:
 * matches under the threshold), x, y, x-subpixel, y-subpixel, method,
 * score and the method's own value (sad, ssd, or correlation for ncc and
 * zncc) of the best position searched, found or not (best NULL: none could
 * be searched, x = y = -1 and score 1), its width, height and scale (the
 * size it was found at: best_box, each match's in boxes), the frame's
 * times, and with max_matches > 1 the list of the n matches. */
GstMessage *gst_kmatch_report_message (GstObject * src,
    const GstSegment * segment, GstBuffer * buf, const KMatchPosition * best,
    const GstKMatchBox * best_box, const KMatchPosition * matches,
    const GstKMatchBox * boxes, gint n, KMatchMethod method,
    gint max_matches, guint index, const gchar * name);

/* A GstVideoRegionOfInterestMeta per match on buf, best first, with ids
 * after any already there (from another detector upstream, or another
 * template), its rectangle the size it was found at, the template, the
 * method, score, scale and the method's own value as a parameter. */
void gst_kmatch_report_metas (GstBuffer * buf, const KMatchPosition * matches,
    const GstKMatchBox * boxes, gint n, KMatchMethod method, guint index,
    const gchar * name);

G_END_DECLS
#endif /* KMATCH_REPORT_H */
