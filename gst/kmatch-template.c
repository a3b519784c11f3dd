/* GStreamer kconv plugin: templates for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Template images are decoded by GStreamer itself (decodebin, videoconvert,
 * appsink), so any format it can read works, and turned into the samples
 * the matcher compares: luma made the way the frames' luma is, or RGB.
 */
#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include "kmatch-template.h"
#include "kmatch.h"

#define LOAD_TIMEOUT (10 * GST_SECOND)

/* One decode, shared by the caller and the thread that runs it; the last
 * of the two to let go frees it. */
typedef struct
{
  gint refs;
  gchar *path;
  GMutex lock;
  GCond cond;
  gboolean done;
  GstSample *sample;
  GError *error;
} Decode;

static void
decode_unref (Decode * d)
{
  if (!g_atomic_int_dec_and_test (&d->refs))
    return;
  g_free (d->path);
  g_clear_pointer (&d->sample, gst_sample_unref);
  g_clear_error (&d->error);
  g_mutex_clear (&d->lock);
  g_cond_clear (&d->cond);
  g_free (d);
}

static void
decode_report (Decode * d, GstSample * sample, GError * error)
{
  g_mutex_lock (&d->lock);
  d->sample = sample;
  d->error = error;
  d->done = TRUE;
  g_cond_signal (&d->cond);
  g_mutex_unlock (&d->lock);
}

/* The size the decoder is about to output: an image too large is refused
 * by the caps after videoconvert before a frame of it exists; this says
 * how large it was. */
static GstPadProbeReturn
note_decoded_size (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *size = data;            /* width, height; lives as long as the pad */
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gint w = 0, h = 0;
    gst_event_parse_caps (ev, &caps);
    GstStructure *s = gst_caps_get_structure (caps, 0);
    gst_structure_get_int (s, "width", &w);
    gst_structure_get_int (s, "height", &h);
    g_atomic_int_set (&size[0], w);
    g_atomic_int_set (&size[1], h);
  }
  return GST_PAD_PROBE_OK;
}

/* Whether an RGBA sample has a pixel that counts (alpha 128 and up). */
static gboolean
has_opaque_pixel (GstSample * rgba)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gboolean any = FALSE;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba))
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (rgba),
          GST_MAP_READ))
    return FALSE;
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info) && !any; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH (&info) && !any; x++)
      any = row[4 * x + 3] >= 128;
  }
  gst_video_frame_unmap (&f);
  return any;
}

/* Decodes the file in a pipeline of its own, reports, then tears the
 * pipeline down.  A decoder stuck on a damaged file (Debian 12's jpegdec
 * spins forever on some) holds its stream lock, and stopping the pipeline
 * then never returns: the caller has its answer by then, and this thread
 * is left behind. */
static gpointer
decode_thread (gpointer data)
{
  Decode *d = data;
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("filesrc name=src ! decodebin ! "
      "videoconvert name=conv ! video/x-raw,format=RGBA,width=[1,%d],"
      "height=[1,%d] ! appsink name=sink", KMATCH_TEMPLATE_MAX_SIDE,
      KMATCH_TEMPLATE_MAX_SIDE);
  GstElement *pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    decode_report (d, NULL, err);
    decode_unref (d);
    return NULL;
  }
  g_clear_error (&err);         /* a pipeline made all the same */
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (src, "location", d->path, NULL);
  GstElement *conv = gst_bin_get_by_name (GST_BIN (pipe), "conv");
  GstPad *conv_sink = gst_element_get_static_pad (conv, "sink");
  gint *size = g_new0 (gint, 2);
  gst_pad_add_probe (conv_sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      note_decoded_size, size, g_free);
  gst_object_unref (conv_sink);
  gst_object_unref (conv);

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
    GError *why = NULL;
    const gboolean answered = msg != NULL;
    if (!answered)
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    else if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR) {
      gst_message_unref (msg);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    }
    if (msg)
      gst_message_parse_error (msg, &why, NULL);
    gint w = g_atomic_int_get (&size[0]), h = g_atomic_int_get (&size[1]);
    if (w > KMATCH_TEMPLATE_MAX_SIDE || h > KMATCH_TEMPLATE_MAX_SIDE)
      g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "template image \"%s\" is %dx%d pixels: the largest template "
          "taken is %d a side", d->path, w, h, KMATCH_TEMPLATE_MAX_SIDE);
    else
      g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "could not decode template image \"%s\": %s", d->path,
          why ? why->message : answered ? "no image in it" :
          "no image after 10 s of decoding (a damaged file?)");
    g_clear_error (&why);
  } else if (!has_opaque_pixel (sample)) {
    g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\" is transparent everywhere (no pixel with "
        "alpha of 128 or more): it would match nothing", d->path);
    g_clear_pointer (&sample, gst_sample_unref);
  }
  if (msg)
    gst_message_unref (msg);
  decode_report (d, sample, err);
  decode_unref (d);

  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return NULL;
}

GstSample *
kmatch_template_load_file (const gchar * path, GError ** error)
{
  /* a FIFO or a device would hold the decoding thread forever */
  GStatBuf st;
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "template image \"%s\" %s", path, g_file_test (path,
            G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
    return NULL;
  }
  Decode *d = g_new0 (Decode, 1);
  d->refs = 2;
  d->path = g_strdup (path);
  g_mutex_init (&d->lock);
  g_cond_init (&d->cond);
  GThread *t = g_thread_try_new ("kmatch-template", decode_thread, d, error);
  if (!t) {
    d->refs = 1;
    decode_unref (d);
    return NULL;
  }
  g_thread_unref (t);           /* detached: it may outlive this call */

  /* the decode has its own limit; this one is for a pipeline that does not
   * even start */
  const gint64 deadline = g_get_monotonic_time () +
      (LOAD_TIMEOUT + 5 * GST_SECOND) / GST_USECOND;
  GstSample *sample = NULL;
  g_mutex_lock (&d->lock);
  while (!d->done && g_cond_wait_until (&d->cond, &d->lock, deadline));
  if (d->done) {
    sample = g_steal_pointer (&d->sample);
    if (d->error)
      g_propagate_error (error, g_steal_pointer (&d->error));
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": the decoder did not "
        "answer within 15 s", path);
  }
  g_mutex_unlock (&d->lock);
  decode_unref (d);
  return sample;
}

GstSample *
kmatch_template_to_rgba (GstSample * sample, GError ** error)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample's caps are not raw video");
    return NULL;
  }
  if (GST_VIDEO_INFO_WIDTH (&info) > KMATCH_TEMPLATE_MAX_SIDE
      || GST_VIDEO_INFO_HEIGHT (&info) > KMATCH_TEMPLATE_MAX_SIDE) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample is %dx%d pixels: the largest template taken is "
        "%d a side", GST_VIDEO_INFO_WIDTH (&info),
        GST_VIDEO_INFO_HEIGHT (&info), KMATCH_TEMPLATE_MAX_SIDE);
    return NULL;
  }
  GstCaps *rgb = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", NULL);
  GstSample *out = gst_video_convert_sample (sample, rgb, LOAD_TIMEOUT, error);
  gst_caps_unref (rgb);
  if (out && !has_opaque_pixel (out)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample is transparent everywhere (no pixel with alpha "
        "of 128 or more): it would match nothing");
    g_clear_pointer (&out, gst_sample_unref);
  }
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
