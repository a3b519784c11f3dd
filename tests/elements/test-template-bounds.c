/* kconv: template lists within bounds of memory and time
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Under a 3 GB address-space limit (as a service would run it):
 *  - 16, then 64, copies of a PNG of 8192x8192 pixels (64 KB of file,
 *    256 MB of RGBA) in template-location for 320x240 frames: none is
 *    decoded (only their headers are read), each is refused with a
 *    warning of its own, the stream flows, in under 10 s and 1 GB of
 *    peak resident memory, the decoder's processes included;
 *  - template-budget: three 64x64 templates with a budget of 9000
 *    pixels keep the first two, and the third is refused with a warning
 *    naming it and the budget.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <glib/gstdio.h>
#include <gst/video/video.h>
#include "unit/check.h"

/* AddressSanitizer reserves terabytes of address space for its shadow:
 * under it the limit cannot be set, and resident sizes mean little */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif


/* A grey PNG of w x h pixels of one value */
static gchar *
write_png (gint w, gint h, const gchar * name)
{
  gchar *desc = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=%d,framerate=0/1", w, h);
  GstCaps *caps = gst_caps_from_string (desc);
  g_free (desc);
  GstVideoInfo info;
  gst_video_info_from_caps (&info, caps);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 90, info.size);
  GstSample *raw = gst_sample_new (buf, caps, NULL, NULL);
  GstCaps *png_caps = gst_caps_from_string ("image/png");
  GstSample *png = gst_video_convert_sample (raw, png_caps, 60 * GST_SECOND,
      NULL);
  gchar *path = g_strdup_printf ("%s/kconv-bounds-%s-%d.png", g_get_tmp_dir (),
      name, (int) getpid ());
  GstMapInfo map;
  if (!png || !gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ))
    g_error ("could not encode a %dx%d PNG", w, h);
  g_file_set_contents (path, (const gchar *) map.data, map.size, NULL);
  gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  gst_sample_unref (png);
  gst_caps_unref (png_caps);
  gst_sample_unref (raw);
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
  return path;
}

/* Runs 3 frames of 320x240 through kpatternmatch with these properties;
 * the warnings posted (each appended to warnings), the reports and how
 * long it took */
static gdouble
run (const gchar * props, GPtrArray * warnings, guint * reports,
    gboolean * error)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=GRAY8,width=320,height=240 ! kpatternmatch "
      "backend=cpu %s ! fakesink", props);
  const gint64 t0 = g_get_monotonic_time ();
  GstElement *p = gst_parse_launch (desc, NULL);
  g_free (desc);
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  *reports = 0;
  *error = FALSE;
  for (GstMessage * m; (m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING | GST_MESSAGE_ERROR |
              GST_MESSAGE_EOS));) {
    const GstMessageType t = GST_MESSAGE_TYPE (m);
    GError *err = NULL;
    if (t == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &err, NULL);
      g_ptr_array_add (warnings, g_strdup (err->message));
      g_error_free (err);
    } else if (t == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      printf ("  error: %s\n", err->message);
      g_error_free (err);
      *error = TRUE;
    } else if (t == GST_MESSAGE_ELEMENT) {
      *reports += gst_structure_has_name (gst_message_get_structure (m),
          "kpatternmatch");
    }
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return (g_get_monotonic_time () - t0) / 1e6;
}

static glong
peak_mb (int who)
{
  struct rusage u;
  getrusage (who, &u);
  return u.ru_maxrss / 1024;
}

int
main (int argc, char **argv)
{
  /* as a service would run it: a failed allocation aborts the process */
  const struct rlimit as = { 3ul << 30, 3ul << 30 };
  if (!UNDER_ASAN && setrlimit (RLIMIT_AS, &as) != 0)
    g_error ("setrlimit");
  gst_init (&argc, &argv);
  gchar *big = write_png (8192, 8192, "8192");
  GStatBuf st;
  g_stat (big, &st);
  printf ("an 8192x8192 PNG of %ld KB\n", (long) st.st_size / 1024);

  const guint counts[] = { 16, 64 };
  for (guint c = 0; c < G_N_ELEMENTS (counts); c++) {
    GString *list = g_string_new ("template-location=\"");
    for (guint i = 0; i < counts[c]; i++)
      g_string_append_printf (list, "%s%s", i ? "," : "", big);
    g_string_append_c (list, '"');
    GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
    guint reports;
    gboolean error;
    const gdouble secs = run (list->str, warnings, &reports, &error);
    guint refused = 0;
    for (guint i = 0; i < warnings->len; i++)
      refused += strstr (g_ptr_array_index (warnings, i),
          "larger than the 320x240 frames") != NULL;
    REPORT (!error && refused == counts[c], "%u copies: %u warnings, %u "
        "of them refusing a copy for its size%s", counts[c], warnings->len,
        refused, error ? ", and an error" : "");
    REPORT (secs < 10, "%u copies: %.2f s", counts[c], secs);
    g_ptr_array_unref (warnings);
    g_string_free (list, TRUE);
  }
  const glong self_mb = peak_mb (RUSAGE_SELF);
  const glong child_mb = peak_mb (RUSAGE_CHILDREN);
  REPORT (UNDER_ASAN || (self_mb < 1024 && child_mb < 1024), "peak resident "
      "%ld MB here, %ld MB in a decoder process%s", self_mb, child_mb,
      UNDER_ASAN ? " (not bounded under AddressSanitizer)" : "");
  g_unlink (big);
  g_free (big);

  /* the budget: 2 x 4096 pixels fit 9000, the third does not */
  gchar *small = write_png (64, 64, "64");
  gchar *props = g_strdup_printf ("template-budget=9000 "
      "template-location=\"%s,%s,%s\"", small, small, small);
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  guint reports;
  gboolean error;
  run (props, warnings, &reports, &error);
  const gchar *w = warnings->len ? g_ptr_array_index (warnings, 0) : "";
  REPORT (!error && warnings->len == 1 && strstr (w, small)
      && strstr (w, "budget of 9000 pixels"), "budget: %u warnings: %s",
      warnings->len, w);
  REPORT (reports == 3 * 2, "budget: %u reports for 3 frames of the two "
      "templates kept", reports);
  g_ptr_array_unref (warnings);
  g_unlink (small);
  g_free (small);
  g_free (props);
  return check_summary ();
}
