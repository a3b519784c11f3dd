/* kconv: kpatternmatch's scales: a template found at another size
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A smooth random texture is the frame; the template is a piece of it
 * shrunk to half (2x2 averages), so that it lies in the frame at twice its
 * size.  With scales the element must report that size (message, the
 * list of matches, the ROI meta), draw the box that size, keep to
 * template-budget, and refuse scales it cannot take.  KCONV_TEST_BACKEND
 * picks the backend (check-backends.h).
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "check-backends.h"
#include "check-properties.h"

#define W 160
#define H 120
#define PX 70                   /* the piece: 32x32 at (70, 40) */
#define PY 40
#define PS 32

/* random samples blurred three times by a 5x5 box: a texture whose
 * halves still look like it */
static guint8 *
texture (guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  guint *a = g_new (guint, W * H), *b = g_new (guint, W * H);
  for (int i = 0; i < W * H; i++)
    a[i] = g_rand_int_range (r, 0, 256);
  for (int pass = 0; pass < 3; pass++) {
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        guint s = 0, n = 0;
        for (int j = -2; j <= 2; j++)
          for (int i = -2; i <= 2; i++)
            if (x + i >= 0 && x + i < W && y + j >= 0 && y + j < H) {
              s += a[(y + j) * W + x + i];
              n++;
            }
        b[y * W + x] = s / n;
      }
    memcpy (a, b, sizeof (guint) * W * H);
  }
  /* stretched to 0 .. 255 */
  guint lo = 255, hi = 0;
  for (int i = 0; i < W * H; i++) {
    lo = MIN (lo, a[i]);
    hi = MAX (hi, a[i]);
  }
  guint8 *px = g_malloc (W * H);
  for (int i = 0; i < W * H; i++)
    px[i] = (guint8) ((a[i] - lo) * 255 / MAX (hi - lo, 1));
  g_free (a);
  g_free (b);
  g_rand_free (r);
  return px;
}

/* the piece at (PX, PY), PS square, shrunk to half: a GRAY8 sample */
static GstSample *
half_piece (const guint8 * px)
{
  const int s = PS / 2;
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "GRAY8", "width", G_TYPE_INT, s, "height", G_TYPE_INT, s, "framerate",
      GST_TYPE_FRACTION, 0, 1, NULL);
  GstVideoInfo info;
  gst_video_info_from_caps (&info, caps);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  GstVideoFrame vf;
  gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE);
  for (int y = 0; y < s; y++)
    for (int x = 0; x < s; x++) {
      const guint8 *p = px + (PY + 2 * y) * W + PX + 2 * x;
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + x] =
          (guint8) ((p[0] + p[1] + p[W] + p[W + 1] + 2) / 4);
    }
  gst_video_frame_unmap (&vf);
  GstSample *sample = gst_sample_new (buf, caps, NULL, NULL);
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
  return sample;
}

typedef struct
{
  GstHarness *h;
  GstBus *bus;
  gint warnings;
} Fixture;

static Fixture
fixture_new (const gchar * scales, const gchar * budget)
{
  Fixture f = { 0 };
  f.h = gst_harness_new ("kpatternmatch");
  f.bus = gst_bus_new ();
  gst_element_set_bus (f.h->element, f.bus);
  gst_util_set_object_arg (G_OBJECT (f.h->element), "method", "zncc");
  if (g_getenv ("KCONV_TEST_BACKEND"))
    gst_util_set_object_arg (G_OBJECT (f.h->element), "backend",
        g_getenv ("KCONV_TEST_BACKEND"));
  g_object_set (f.h->element, "frames-in-flight", 1, "threshold", 0.05,
      "max-matches", 2, "draw", TRUE, "scales", scales, NULL);
  if (budget)
    gst_util_set_object_arg (G_OBJECT (f.h->element), "template-budget",
        budget);
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=%d,framerate=25/1", W, H);
  gst_harness_set_src_caps_str (f.h, caps);
  g_free (caps);
  return f;
}

static void
fixture_free (Fixture * f)
{
  gst_element_set_bus (f->h->element, NULL);
  gst_object_unref (f->bus);
  gst_harness_teardown (f->h);
}

/* the element's kpatternmatch message (warnings counted on the way) */
static GstStructure *
result (Fixture * f)
{
  GstMessage *m;
  GstStructure *found = NULL;
  while ((m = gst_bus_pop (f->bus))) {
    const GstStructure *s = gst_message_get_structure (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
      f->warnings++;
    if (!found && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (s, "kpatternmatch"))
      found = gst_structure_copy (s);
    gst_message_unref (m);
  }
  return found;
}

/* Pushes the texture with the half-size piece as the template; returns
 * the frame that came out and the message */
static GstBuffer *
run (Fixture * f, const guint8 * px, GstStructure ** s)
{
  GstSample *t = half_piece (px);
  gboolean ok = FALSE;
  g_signal_emit_by_name (f->h->element, "set-template", t, &ok);
  fail_unless (ok);
  gst_sample_unref (t);
  GstBuffer *out = gst_harness_push_and_pull (f->h,
      gst_buffer_new_memdup (px, W * H));
  fail_unless (out != NULL);
  *s = result (f);
  fail_unless (*s != NULL, "no kpatternmatch message");
  return out;
}

GST_START_TEST (test_found_at_twice_its_size)
{
  guint8 *px = texture (11);
  Fixture f = fixture_new ("0.5:3:1.25", NULL);
  GstStructure *s;
  GstBuffer *out = run (&f, px, &s);
  gint x, y, w, h;
  gdouble scale;
  gboolean found;
  fail_unless (gst_structure_get (s, "found", G_TYPE_BOOLEAN, &found, "x",
          G_TYPE_INT, &x, "y", G_TYPE_INT, &y, "width", G_TYPE_INT, &w,
          "height", G_TYPE_INT, &h, "scale", G_TYPE_DOUBLE, &scale, NULL));
  /* 0.5 * 1.25^6 = 1.907: the size of the list nearest 2, 31x31 */
  fail_unless (found && w == 31 && h == 31 && scale > 1.90 && scale < 1.91,
      "found %d at %dx%d, scale %g", found, w, h, scale);
  fail_unless (ABS (x - PX) <= 1 && ABS (y - PY) <= 1, "at %d,%d, want %d,%d",
      x, y, PX, PY);
  /* the list of matches and the meta say the same size */
  const GValue *list = gst_structure_get_value (s, "matches");
  fail_unless (list && gst_value_list_get_size (list) >= 1);
  const GstStructure *m0 =
      gst_value_get_structure (gst_value_list_get_value (list, 0));
  gint mw = 0;
  gdouble ms = 0;
  fail_unless (gst_structure_get (m0, "width", G_TYPE_INT, &mw, "scale",
          G_TYPE_DOUBLE, &ms, NULL) && mw == 31 && ms == scale);
  GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)
      gst_buffer_get_meta (out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
  fail_unless (roi && roi->x == (guint) x && roi->w == 31 && roi->h == 31);
  GstStructure *param = gst_video_region_of_interest_meta_get_param (roi,
      "kpatternmatch");
  gdouble ps = 0;
  fail_unless (param && gst_structure_get_double (param, "scale", &ps)
      && ps == scale);
  /* the box drawn is that size: its right edge at x + 30 */
  GstMapInfo map;
  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless_equals_int (map.data[(y + 15) * W + x + 30], 255);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_structure_free (s);
  fixture_free (&f);

  /* at the template's own size alone (the default) it is not found */
  f = fixture_new ("1", NULL);
  out = run (&f, px, &s);
  fail_unless (gst_structure_get (s, "found", G_TYPE_BOOLEAN, &found,
          "scale", G_TYPE_DOUBLE, &scale, "width", G_TYPE_INT, &w, NULL));
  fail_unless (!found && scale == 1.0 && w == PS / 2, "found %d, scale %g",
      found, scale);
  gst_buffer_unref (out);
  gst_structure_free (s);
  fixture_free (&f);
  g_free (px);
}

GST_END_TEST;

/* the resized copies keep to template-budget: those past it are left out
 * with a warning, the others still searched */
GST_START_TEST (test_budget)
{
  guint8 *px = texture (12);
  Fixture f = fixture_new ("1,2", "500");
  GstStructure *s;
  GstBuffer *out = run (&f, px, &s);
  gdouble scale = 0;
  fail_unless (gst_structure_get_double (s, "scale", &scale) && scale == 1.0);
  fail_unless (f.warnings == 1, "%d warnings", f.warnings);
  gst_buffer_unref (out);
  gst_structure_free (s);
  fixture_free (&f);
  g_free (px);
}

GST_END_TEST;

static void
expect_refused (const gchar * text)
{
  gst_kconv_check_refused_at_start ("kpatternmatch", "scales", "0.5,2", text);
}

GST_START_TEST (test_refusals)
{
  expect_refused ("0.5:2");     /* no step */
  expect_refused ("0.5:2:1");   /* a step that never grows */
  expect_refused ("0");
  expect_refused ("1,,2");
  expect_refused ("0.01:100:1.01");     /* more than 64 sizes */
  expect_refused ("1;2");
}

GST_END_TEST;

static Suite *
kpatternmatch_scales_suite (void)
{
  Suite *s = suite_create ("kpatternmatch-scales");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_found_at_twice_its_size);
  tcase_add_test (tc, test_budget);
  tcase_add_test (tc, test_refusals);
  return s;
}

KCONV_CHECK_MAIN (kpatternmatch_scales);
