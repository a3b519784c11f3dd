/* kconv: kconvfilter's regions
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every format the element takes, at an odd size, through a table of
 * region layouts (region-list at the edges and corners, overlapping, odd,
 * outside the frame, larger than it, with a margin; ROI metas of two types
 * with roi-types picking one; outside-roi) and kernels (a zero-sum one,
 * whose chroma planes=auto makes neutral, a float gaussian, an asymmetric
 * integer matrix with wrap): inside the regions (chroma's at its own
 * resolution, rounded outward) every sample is what regions=all gives,
 * every other byte is the input's, whether the frame is filtered in place
 * or (held elsewhere too) into a copy.  Then the refusals of region-list.
 * KCONV_TEST_BACKEND picks the backend (check-backends.h).
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "check-backends.h"
#include "check-properties.h"
#include "check-formats.h"

#define W 62
#define H 37

typedef struct
{
  const char *name;
  const char *mode;             /* regions= */
  const char *list;             /* region-list, or NULL */
  int margin;
  const char *types;            /* roi-types, or NULL */
} Layout;

static const Layout layouts[] = {
  {"the middle", "fixed", "20,10,13,9", 0, NULL},
  {"the corners", "fixed", "0,0,4,3;58,34,4,3;0,33,7,4;57,0,5,8", 0, NULL},
  {"overlapping, odd", "fixed", "5,5,21,13;15,9,17,19;3,30,1,1", 0, NULL},
  {"outside and larger", "fixed", "100,3,5,5;40,20,500,500", 0, NULL},
  {"with a margin", "fixed", "30,15,1,1", 4, NULL},
  {"none", "fixed", "", 0, NULL},
  {"faces of the metas", "roi", NULL, 0, "face"},
  {"every meta", "roi", NULL, 1, NULL},
  {"outside the faces", "outside-roi", NULL, 0, "face"},
};

/* the metas a frame carries: two faces, and a plate roi-types=face
 * leaves */
static const struct
{
  const char *type;
  guint x, y, w, h;
} metas[] = {
  {"face", 7, 4, 11, 9}, {"face", 40, 25, 30, 30}, {"plate", 25, 2, 9, 30},
};

static const char *kernels[][2] = {
  {"kernel", "edge"},
  {"kernel", "gaussian"},       /* (kernel-size 5, below) */
  {"matrix", "1 2 0 -1; 0 3 1 1"},
};

static GstBuffer *
frame_of (const GstVideoInfo * info, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  GstBuffer *b = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = g_rand_int (r);
  gst_buffer_unmap (b, &map);
  g_rand_free (r);
  return b;
}

static GstBuffer *
run (const gchar * format, const char *const *kernel, const Layout * lay,
    GstBuffer * in)
{
  GstHarness *h = gst_harness_new ("kconvfilter");
  if (g_getenv ("KCONV_TEST_BACKEND"))
    gst_util_set_object_arg (G_OBJECT (h->element), "backend",
        g_getenv ("KCONV_TEST_BACKEND"));
  gst_util_set_object_arg (G_OBJECT (h->element), kernel[0], kernel[1]);
  g_object_set (h->element, "kernel-size", 5, "frames-in-flight", 1, NULL);
  if (kernel[0][0] == 'm')
    gst_util_set_object_arg (G_OBJECT (h->element), "border", "wrap");
  if (lay) {
    gst_util_set_object_arg (G_OBJECT (h->element), "regions", lay->mode);
    g_object_set (h->element, "region-list", lay->list, "region-margin",
        lay->margin, "roi-types", lay->types, NULL);
  }
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=25/1", format, W, H);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  /* regions: every other layout pushes a buffer the test still holds (not
   * writable: filtered into a copy, in must stay as it is), the others a
   * copy of their own (filtered in place) */
  GstBuffer *out = gst_harness_push_and_pull (h, lay && (lay - layouts) % 2 ?
      gst_buffer_ref (in) : gst_buffer_copy (in));
  gst_harness_teardown (h);
  return out;
}

/* Whether frame pixel (u, v) lies in the area the layout filters */
static gboolean
filtered_pixel (const Layout * lay, const KConvRect * rects, gint n, gint u,
    gint v)
{
  gboolean in = FALSE;
  for (gint i = 0; i < n && !in; i++)
    in = u >= (gint64) rects[i].x - lay->margin
        && u < (gint64) rects[i].x + rects[i].width + lay->margin
        && v >= (gint64) rects[i].y - lay->margin
        && v < (gint64) rects[i].y + rects[i].height + lay->margin;
  return strcmp (lay->mode, "outside-roi") == 0 ? !in : in;
}

/* Whether sample (x, y) of component c is filtered: the area at the
 * component's resolution, rounded outward (a sample is, when one of the
 * frame's pixels it covers is) */
static gboolean
inside (const Layout * lay, const GstVideoInfo * info, gint c, gint x, gint y)
{
  KConvRect rects[8];
  gint n = 0;
  if (lay->list) {
    char err[128];
    n = kconv_rects_parse (lay->list, rects, 8, err, sizeof err);
  } else {
    for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
      if (!lay->types || strcmp (lay->types, metas[i].type) == 0)
        rects[n++] = (KConvRect) {
        metas[i].x, metas[i].y, metas[i].w, metas[i].h};
  }
  const gint cw = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  const gint ch = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  const gint sx = (W + cw - 1) / cw, sy = (H + ch - 1) / ch;
  for (gint v = y * sy; v < MIN ((y + 1) * sy, H); v++)
    for (gint u = x * sx; u < MIN ((x + 1) * sx, W); u++)
      if (filtered_pixel (lay, rects, n, u, v))
        return TRUE;
  return FALSE;
}

static void
check (const gchar * format, const char *const *kernel, const Layout * lay)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), W,
      H);
  GstBuffer *in = frame_of (&info, 5);
  for (guint i = 0; i < G_N_ELEMENTS (metas); i++)
    gst_buffer_add_video_region_of_interest_meta (in, metas[i].type,
        metas[i].x, metas[i].y, metas[i].w, metas[i].h);
  GstBuffer *pristine = gst_buffer_copy_deep (in);
  GstBuffer *full = run (format, kernel, NULL, in);
  GstBuffer *got = run (format, kernel, lay, in);
  /* a frame held elsewhere is never written */
  GstMapInfo m1, m2;
  gst_buffer_map (in, &m1, GST_MAP_READ);
  gst_buffer_map (pristine, &m2, GST_MAP_READ);
  fail_unless (memcmp (m1.data, m2.data, m1.size) == 0, "%s, %s: the "
      "frame the test still holds was written", format, lay->name);
  gst_buffer_unmap (in, &m1);
  gst_buffer_unmap (pristine, &m2);
  gst_buffer_unref (pristine);
  GstVideoFrame fi, ff, fg;
  gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
  gst_video_frame_map (&ff, &info, full, GST_MAP_READ);
  gst_video_frame_map (&fg, &info, got, GST_MAP_READ);
  gint bad_in = 0, bad_out = 0;
  const GstVideoFormatInfo *finfo = info.finfo;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    const gint bytes = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8 ? 2 : 1;
    const gint p = GST_VIDEO_INFO_COMP_PLANE (&info, c);
    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&info, c); y++)
      for (gint x = 0; x < GST_VIDEO_INFO_COMP_WIDTH (&info, c); x++) {
        const gsize at = (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p) +
            GST_VIDEO_FRAME_COMP_POFFSET (&fi, c) +
            (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, c);
        const guint8 *a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi,
            p) + at;
        const guint8 *b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&ff,
            p) + at;
        const guint8 *g = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fg,
            p) + at;
        /* alpha passes through everywhere */
        const gboolean alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo)
            && c == GST_VIDEO_COMP_A;
        if (!alpha && inside (lay, &info, c, x, y)) {
          bad_in += memcmp (g, b, bytes) != 0;
        } else {
          bad_out += memcmp (g, a, bytes) != 0;
        }
      }
  }
  fail_unless (bad_in == 0 && bad_out == 0, "%s, %s=%s, %s: %d samples "
      "inside differ from regions=all, %d outside from the input", format,
      kernel[0], kernel[1], lay->name, bad_in, bad_out);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&ff);
  gst_video_frame_unmap (&fg);
  gst_buffer_unref (in);
  gst_buffer_unref (full);
  gst_buffer_unref (got);
}

static GPtrArray *formats;

GST_START_TEST (test_every_format)
{
  const gchar *format = g_ptr_array_index (formats, __i__);
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
      check (format, kernels[k], &layouts[l]);
}

GST_END_TEST;

static void
expect_refused (const gchar * text)
{
  gst_kconv_check_refused_at_start ("kconvfilter", "region-list", "1,2,3,4",
      text);
}

GST_START_TEST (test_region_list_refusals)
{
  expect_refused ("1,2,3");     /* ragged */
  expect_refused ("-1,2,3,4");  /* negative */
  expect_refused ("1,2,0,4");   /* empty */
  expect_refused ("1,2,3,4;");
  expect_refused ("1,2,3,4;x");
}

GST_END_TEST;

static Suite *
kconvfilter_regions_suite (void)
{
  Suite *s = suite_create ("kconvfilter-regions");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  formats = check_formats_of ("kconvfilter");
  tcase_add_loop_test (tc, test_every_format, 0, formats->len);
  tcase_add_test (tc, test_region_list_refusals);
  return s;
}

KCONV_CHECK_MAIN (kconvfilter_regions);
