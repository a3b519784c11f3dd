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
