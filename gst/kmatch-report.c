/* GStreamer kconv plugin: how kpatternmatch reports what it found
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kmatch-report.h"

/* The method, the score, the position to a fraction of a pixel and the
 * method's own value: the sum for sad and ssd, the correlation for ncc and
 * zncc */
static void
set_score (GstStructure * s, const KMatchPosition * p, const GstKMatchBox * b,
    KMatchMethod method)
{
  gst_structure_set (s, "method", G_TYPE_STRING, kmatch_method_name (method),
      "score", G_TYPE_DOUBLE, p->score, "x-subpixel", G_TYPE_DOUBLE, p->sub_x,
      "y-subpixel", G_TYPE_DOUBLE, p->sub_y, "scale", G_TYPE_DOUBLE, b->scale,
      NULL);
  if (method == KMATCH_METHOD_SAD || method == KMATCH_METHOD_SSD)
    gst_structure_set (s, kmatch_method_name (method), G_TYPE_UINT64,
        (guint64) p->sad, NULL);
  else
    gst_structure_set (s, "correlation", G_TYPE_DOUBLE, p->correlation, NULL);
}

static GstStructure *
match_structure (const gchar * name, const KMatchPosition * p,
    const GstKMatchBox * b, KMatchMethod method)
{
  GstStructure *s = gst_structure_new (name, "x", G_TYPE_INT, p->x, "y",
      G_TYPE_INT, p->y, "width", G_TYPE_INT, b->width, "height", G_TYPE_INT,
      b->height, NULL);
  set_score (s, p, b, method);
  return s;
}

GstMessage *
gst_kmatch_report_message (GstObject * src, const GstSegment * segment,
    GstBuffer * buf, const KMatchPosition * best,
    const GstKMatchBox * best_box, const KMatchPosition * matches,
    const GstKMatchBox * boxes, gint n, KMatchMethod method,
    gint max_matches, guint index, const gchar * name)
{
  GstClockTime ts = GST_BUFFER_PTS (buf);
  const KMatchPosition none = { -1, -1, 0, 1.0, 0, -1, -1 };
  GstStructure *s = match_structure ("kpatternmatch", best ? best : &none,
      best_box, method);
  gst_structure_set (s, "template", G_TYPE_UINT, index, "template-name",
      G_TYPE_STRING, name ? name : "", "found", G_TYPE_BOOLEAN, n > 0,
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64, gst_segment_to_stream_time (segment,
          GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64, gst_segment_to_running_time (segment,
          GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf), NULL);
  if (max_matches > 1) {
    GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
    g_value_init (&list, GST_TYPE_LIST);
    for (gint i = 0; i < n; i++) {
      g_value_init (&item, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&item, match_structure ("match", &matches[i],
              &boxes[i], method));
      gst_value_list_append_and_take_value (&list, &item);
    }
    gst_structure_take_value (s, "matches", &list);
  }
  return gst_message_new_element (src, s);
}

/* ours follow any ROI ids already on the buffer */
static gint
next_roi_id (GstBuffer * buffer)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint next = 0;
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    next = MAX (next, ((GstVideoRegionOfInterestMeta *) meta)->id + 1);
  return next;
}

void
gst_kmatch_report_metas (GstBuffer * buf, const KMatchPosition * matches,
    const GstKMatchBox * boxes, gint n, KMatchMethod method, guint index,
    const gchar * name)
{
  gint id = next_roi_id (buf);
  for (gint i = 0; i < n; i++) {
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta (buf, "kpatternmatch",
        matches[i].x, matches[i].y, boxes[i].width, boxes[i].height);
    meta->id = id + i;
    GstStructure *param = gst_structure_new ("kpatternmatch", "template",
        G_TYPE_UINT, index, "template-name", G_TYPE_STRING, name ? name : "",
        NULL);
    set_score (param, &matches[i], &boxes[i], method);
    gst_video_region_of_interest_meta_add_param (meta, param);
  }
}
