/* GStreamer kconv plugin: templates for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Template images are decoded by GStreamer itself (decodebin, videoconvert,
 * appsink), so any format it can read works, and turned into the samples
 * the matcher compares: luma made the way the frames' luma is, or RGB.
 */
#include <gst/app/gstappsink.h>
#include "kmatch-template.h"
#include "kmatch.h"

#define LOAD_TIMEOUT (10 * GST_SECOND)

GstSample *
kmatch_template_load_file (const gchar * path, GError ** error)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("filesrc name=src ! decodebin ! "
      "videoconvert ! video/x-raw,format=RGBA ! appsink name=sink", &err);
  if (!pipe) {
    g_propagate_error (error, err);
    return NULL;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "location", path, NULL);

  /* prerolled (ASYNC_DONE) or refused (ERROR): waiting for the preroll
   * alone would sit out the whole timeout on a file that is no image */
  GstSample *sample = NULL;
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = NULL;
  if (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE)
    msg = gst_bus_timed_pop_filtered (bus, LOAD_TIMEOUT,
        GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ASYNC_DONE)
    sample = gst_app_sink_try_pull_preroll (GST_APP_SINK (sink), 0);
  if (!sample) {
    /* say what GStreamer said, if it said anything */
    if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR) {
      if (msg)
        gst_message_unref (msg);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    }
    GError *why = NULL;
    if (msg)
      gst_message_parse_error (msg, &why, NULL);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": %s", path,
        why ? why->message : "no image in it");
    g_clear_error (&why);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return sample;
}

GstSample *
kmatch_template_to_rgba (GstSample * sample, GError ** error)
{
  GstCaps *rgb = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", NULL);
  GstSample *out = gst_video_convert_sample (sample, rgb, LOAD_TIMEOUT, error);
  gst_caps_unref (rgb);
  return out;
}

guint8
kmatch_luma (const GstVideoFormatInfo * frame_format, guint8 r, guint8 g,
    guint8 b)
{
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (frame_format))
    return (guint8) (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
  return kmatch_rgb_luma (r, g, b);
}

guint8 *
kmatch_template_pack (GstSample * rgba, const GstVideoFormatInfo *
    frame_format, gint channels, gint * width, gint * height, guint8 ** mask)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  *mask = NULL;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (rgba),
          GST_MAP_READ))
    return NULL;
  const gint w = GST_VIDEO_INFO_WIDTH (&info), h =
      GST_VIDEO_INFO_HEIGHT (&info);
  guint8 *out = g_malloc ((gsize) w * h * channels);
  guint8 *m = g_malloc ((gsize) w * h);
  gboolean transparent = FALSE;
  for (gint y = 0; y < h; y++) {
    const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    guint8 *d = out + (gsize) y * w * channels;
    for (gint x = 0; x < w; x++, s += 4) {
      if (channels == 3) {
        d[3 * x] = s[0];
        d[3 * x + 1] = s[1];
        d[3 * x + 2] = s[2];
      } else {
        d[x] = kmatch_luma (frame_format, s[0], s[1], s[2]);
      }
      m[(gsize) y * w + x] = s[3] >= 128;
      transparent |= s[3] < 128;
    }
  }
  gst_video_frame_unmap (&frame);
  if (transparent)
    *mask = m;
  else
    g_free (m);
  *width = w;
  *height = h;
  return out;
}
