/* kconv: a buffer smaller than its caps gets an error naming both sizes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the element tests (GstCheck): the element must refuse the
 * buffer with GST_FLOW_ERROR, never read past its end (the sanitizer and
 * valgrind runs see to that), and say "100 bytes" and the size the caps
 * need in the error's detail.
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

static void
check_short_buffer (const gchar * element, const gchar * props)
{
  gchar *desc = g_strdup_printf ("%s %s", element, props);
  GstHarness *h = gst_harness_new_parse (desc);
  g_free (desc);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=25/1");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 100, NULL);
  gst_buffer_memset (buf, 0, 7, 100);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message", element);
  GError *err = NULL;
  gchar *debug = NULL;
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (debug && strstr (debug, "100 bytes") && strstr (debug,
          "64x48 RGBA frame needs 12288"), "%s: %s", element, debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* A buffer whose GstVideoMeta lies: planes that end past the buffer (100
 * bytes, a row short, a byte short, I420 chroma placed at the very end), a
 * meta larger than the caps, a stride past the buffer.  Each is refused
 * with GST_FLOW_ERROR and an error, never read (the sanitizer runs see to
 * that); a truthful meta with padded rows still passes. */
static void
check_lying_video_meta (const gchar * element, const gchar * props)
{
  static const struct
  {
    const gchar *what, *format;
    gint size;                  /* < 0: that much under the frame's own */
    guint mw, mh;               /* the meta's size (0: the caps') */
    gint stride;                /* 0: the caps' */
    gboolean chroma_at_end, ok;
  } cases[] = {
    {"100 bytes", "RGBA", 100, 0, 0, 0, FALSE, FALSE},
    {"a row short", "RGBA", -256, 0, 0, 0, FALSE, FALSE},
    {"a byte short", "RGBA", -1, 0, 0, 0, FALSE, FALSE},
    {"chroma at the end", "I420", 0, 0, 0, 0, TRUE, FALSE},
    {"meta larger than caps", "RGBA", 0, 128, 96, 0, FALSE, FALSE},
    {"stride past the buffer", "RGBA", 0, 0, 0, 4096, FALSE, FALSE},
    {"padded rows, truthful", "RGBA", 0, 0, 0, 320, FALSE, TRUE},
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("%s %s", element, props);
    GstHarness *h = gst_harness_new_parse (desc);
    g_free (desc);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=64,height=48,"
        "framerate=25/1", cases[i].format);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    GstVideoInfo info;
    gst_video_info_set_format (&info,
        gst_video_format_from_string (cases[i].format), 64, 48);
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (&info, p);
      stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p);
    }
    gsize size = GST_VIDEO_INFO_SIZE (&info);
    if (cases[i].stride) {
      stride[0] = cases[i].stride;
      size = cases[i].ok ? (gsize) cases[i].stride * 48 : size;
    }
    if (cases[i].size > 0)
      size = cases[i].size;
    else if (cases[i].size < 0)
      size += cases[i].size;
    if (cases[i].chroma_at_end) {
      offset[1] = size - 10;
      offset[2] = size - 5;
    }
    GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (buf, 0, 7, size);
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), cases[i].mw ? cases[i].mw : 64,
        cases[i].mh ? cases[i].mh : 48, GST_VIDEO_INFO_N_PLANES (&info),
        offset, stride);
    GstFlowReturn ret = gst_harness_push (h, buf);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (cases[i].ok) {
      fail_unless_equals_int (ret, GST_FLOW_OK);
      fail_unless (msg == NULL, "%s, %s: refused", element, cases[i].what);
    } else {
      fail_unless (ret == GST_FLOW_ERROR, "%s, %s: not refused", element,
          cases[i].what);
      fail_unless (msg != NULL, "%s, %s: no error message", element,
          cases[i].what);
    }
    if (msg)
      gst_message_unref (msg);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}
