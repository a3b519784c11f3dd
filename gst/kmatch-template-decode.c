/* GStreamer kconv plugin: decoding a template image file
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer decodes the file (filesrc ! decodebin ! videoconvert !
 * appsink), so any format it can read works.  The size is bounded by a
 * capsfilter after videoconvert: an image too large fails negotiation
 * before a frame of it is allocated, and a probe says how large it was.
 */
#include <gst/app/gstappsink.h>
#include "kmatch-template.h"
#include "kmatch-template-decode.h"

/* What the probe on the converter's input saw; lives as long as the pad */
typedef struct
{
  gint size[2];                 /* width, height */
  GstKMatchSizeFunc on_size;
} SizeNote;

/* The size the decoder is about to output, before it makes a frame. */
static GstPadProbeReturn
note_decoded_size (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SizeNote *note = data;
  gint *size = note->size;
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
    if (note->on_size)
      note->on_size (w, h);
  }
  return GST_PAD_PROBE_OK;
}

/* The error for a decode that gave no image: the size limit, what
 * GStreamer said, or the silence. */
static void
set_decode_error (GError ** error, const gchar * path, const gint * size,
    gint max_width, gint max_height, GstMessage * msg, gboolean answered)
{
  gint w = g_atomic_int_get (&size[0]), h = g_atomic_int_get (&size[1]);
  if (w > max_width || h > max_height) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\" is %dx%d pixels: the largest template "
        "taken here is %dx%d (no larger than the frames, and at most %d a "
        "side)", path, w, h, max_width, max_height, KMATCH_TEMPLATE_MAX_SIDE);
    return;
  }
  GError *why = NULL;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &why, NULL);
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not decode template image \"%s\": %s", path,
      why ? why->message : answered ? "no image in it" :
      "no image after 10 s of decoding (a damaged file?)");
  g_clear_error (&why);
}

GstSample *
gst_kmatch_template_decode (const gchar * path, gint max_width, gint max_height,
    GstKMatchSizeFunc on_size, GError ** error)
{
  GError *err = NULL;
  /* (a range of one value is no range: [1,1] is written 1) */
  gchar *w = g_strdup_printf (max_width > 1 ? "[1,%d]" : "%d", max_width);
  gchar *h = g_strdup_printf (max_height > 1 ? "[1,%d]" : "%d", max_height);
  gchar *desc = g_strdup_printf ("filesrc name=src ! decodebin ! "
      "videoconvert name=conv ! video/x-raw,format=RGBA,width=%s,height=%s "
      "! appsink name=sink", w, h);
  g_free (w);
  g_free (h);
  GstElement *pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    g_propagate_error (error, err);
    return NULL;
  }
  g_clear_error (&err);         /* a pipeline made all the same */
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *conv = gst_bin_get_by_name (GST_BIN (pipe), "conv");
  g_object_set (src, "location", path, NULL);
  GstPad *conv_sink = gst_element_get_static_pad (conv, "sink");
  SizeNote *note = g_new0 (SizeNote, 1);
  gint *size = note->size;
  note->on_size = on_size;
  gst_pad_add_probe (conv_sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      note_decoded_size, note, g_free);
  gst_object_unref (conv_sink);
  gst_object_unref (conv);
  gst_object_unref (src);

  /* prerolled (ASYNC_DONE) or refused (ERROR): waiting for the preroll
   * alone would sit out the whole timeout on a file that is no image */
  GstSample *sample = NULL;
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = NULL;
  if (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE)
    msg = gst_bus_timed_pop_filtered (bus, KMATCH_TEMPLATE_DECODE_TIMEOUT,
        GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  const gboolean answered = msg != NULL;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ASYNC_DONE)
    sample = gst_app_sink_try_pull_preroll (GST_APP_SINK (sink), 0);
  if (!sample) {
    /* say what GStreamer said, if it said anything */
    if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR) {
      g_clear_pointer (&msg, gst_message_unref);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    }
    set_decode_error (error, path, size, max_width, max_height, msg, answered);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (sink);
  if (!answered)
    return NULL;                /* a decoder that never returns: left as is */
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return sample;
}
