/* kconv: kconvfilter element tests
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include "kconv.h"
#include "kconv-matrix.h"
#include "check-backends.h"
#include "check-formats.h"
#include "check-short-buffer.h"
#include "check-properties.h"
#include "photo.h"

/* every format the element takes (check-formats.h), set by the suite */
static GPtrArray *formats;
#define FORMAT(i) ((const gchar *) g_ptr_array_index (formats, (i)))

/* A harness around a kconvfilter; the varargs are name, value string pairs
 * ending with NULL, set as gst-launch would. */
static GstHarness *
harness_new (const gchar * format, gint width, gint height, ...)
{
  GstHarness *h = gst_harness_new ("kconvfilter");
  va_list args;
  const gchar *name;

  /* one frame out per frame in: these tests check what becomes of each
   * frame; test-kconvfilter-streaming.c checks frames in flight */
  g_object_set (h->element, "frames-in-flight", 1, NULL);

  va_start (args, height);
  while ((name = va_arg (args, const gchar *)))
      gst_util_set_object_arg (G_OBJECT (h->element), name, va_arg (args,
            const gchar *));
  va_end (args);

  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", format, width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

static GstBuffer *
random_buffer (gsize size, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *data = g_malloc (size);
  for (gsize i = 0; i < size; i++)
    data[i] = g_rand_int (rand);
  g_rand_free (rand);
  return gst_buffer_new_wrapped (data, size);
}

static GstBuffer *
flat_buffer (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 value[4];
  for (int i = 0; i < 4; i++)
    value[i] = g_rand_int (rand);
  g_rand_free (rand);

  gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]);
    gint hh = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
    (void) w;
    /* 16-bit words hold values of their depth: the bits outside it (below
     * P010's, above I420_10LE's) are 0 (little-endian: low byte first) */
    const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, comp[0]);
    const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, comp[0]);
    const guint word_mask = depth > 8 ? ((1u << depth) - 1) << shift : 0xffff;
    for (gint y = 0; y < hh; y++)
      for (gint x = 0; x < stride; x++)
        d[y * stride + x] = value[(x % pstride + p) % 4] &
            (depth <= 8 ? 0xff : x % 2 ? word_mask >> 8 : word_mask & 0xff);
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The largest difference between the visible samples of two frames (row
 * padding aside). */
static gint
frames_max_diff (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  GstVideoFrame fa, fb;
  gint worst = 0;
  gst_video_frame_map (&fa, info, a, GST_MAP_READ);
  gst_video_frame_map (&fb, info, b, GST_MAP_READ);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    gint row = GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]); y++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (gint i = 0; i < row; i++)
        worst = MAX (worst, ABS ((gint) ra[i] - (gint) rb[i]));
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return worst;
}

/* Every format negotiates; a flat frame stays flat under a blur, byte for
 * byte, alpha and padding included. */
GST_START_TEST (test_formats_flat_blur)
{
  /* the pad template's list, read (check-formats.h) */
  fail_unless (formats->len >= 29, "%u formats", formats->len);
  gboolean gray = FALSE, i420 = FALSE;
  for (guint i = 0; i < formats->len; i++) {
    gray |= g_str_equal (FORMAT (i), "GRAY8");
    i420 |= g_str_equal (FORMAT (i), "I420");
  }
  fail_unless (gray && i420);
  for (guint i = 0; i < formats->len; i++) {
    GstVideoInfo info;
    gst_video_info_set_format (&info,
        gst_video_format_from_string (FORMAT (i)), 19, 11);
    GstHarness *h = harness_new (FORMAT (i), 19, 11, "kernel", "gaussian",
        "kernel-size", "5", "border", "replicate", NULL);
    GstBuffer *in = flat_buffer (&info, i);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL, "%s: no output", FORMAT (i));
    fail_unless (out != in, "%s: blur ran in passthrough", FORMAT (i));
    fail_unless (frames_max_diff (&info, in, out) == 0,
        "%s: flat frame changed", FORMAT (i));
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* On real content: convolved channels change, alpha and padding do not, and
 * planes=luma leaves chroma alone. */
GST_START_TEST (test_formats_alpha_and_planes)
{
  for (guint i = 0; i < formats->len; i++) {
    for (int luma = 0; luma <= 1; luma++) {
      GstVideoInfo info;
      GstVideoFormat fmt = gst_video_format_from_string (FORMAT (i));
      gst_video_info_set_format (&info, fmt, 33, 21);
      GstHarness *h = harness_new (FORMAT (i), 33, 21, "kernel", "edge",
          "planes", luma ? "luma" : "all", NULL);
      GstBuffer *in = random_buffer (info.size, 100 + i);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      GstVideoFrame fi, fo;
      gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
      gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        gboolean keep = c == GST_VIDEO_COMP_A
            || (luma && GST_VIDEO_INFO_IS_YUV (&info) && c != 0);
        gint changed = 0;
        for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fi, c); y++)
          for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fi, c); x++) {
            gint at = y * GST_VIDEO_FRAME_COMP_STRIDE (&fi, c) +
                x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, c);
            changed += GST_VIDEO_FRAME_COMP_DATA (&fi, c)[at] !=
                GST_VIDEO_FRAME_COMP_DATA (&fo, c)[at];
          }
        if (keep)
          fail_unless (changed == 0, "%s%s: component %u changed",
              FORMAT (i), luma ? " luma" : "", c);
        else
          fail_unless (changed > 0, "%s: component %u untouched",
              FORMAT (i), c);
      }
      /* padding bytes (x in RGBx) are copied as they were */
      if (GST_VIDEO_INFO_N_COMPONENTS (&info) == 3 &&
          GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0) == 4) {
        const guint8 *a = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
        const guint8 *b = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
        gint pad = 6 - GST_VIDEO_INFO_COMP_POFFSET (&info, 0) -
            GST_VIDEO_INFO_COMP_POFFSET (&info, 1) -
            GST_VIDEO_INFO_COMP_POFFSET (&info, 2);
        for (gint y = 0; y < 21; y++)
          for (gint x = 0; x < 33; x++) {
            gint at = y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0) + x * 4 + pad;
            fail_unless (a[at] == b[at], "%s: padding changed", FORMAT (i));
          }
      }
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fo);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Component c of a mapped frame, packed as a GRAY8 image. */
static guint8 *
component_gray (GstVideoFrame * f, guint c, gint * w, gint * h)
{
  *w = GST_VIDEO_FRAME_COMP_WIDTH (f, c);
  *h = GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  guint8 *g = g_malloc ((gsize) * w * *h);
  for (gint y = 0; y < *h; y++)
    for (gint x = 0; x < *w; x++)
      g[y * *w + x] = GST_VIDEO_FRAME_COMP_DATA (f, c)[y *
          GST_VIDEO_FRAME_COMP_STRIDE (f, c) + x *
          GST_VIDEO_FRAME_COMP_PSTRIDE (f, c)];
  return g;
}

/* Component c of a mapped frame as values, packed: bytes, or 16-bit words
 * read by their depth, shift and byte order.  (GStreamer 1.22 gives the
 * second chroma of P010, P012 and P016 an offset of 1 sample, not 1
 * byte.) */
static guint16 *
component_values (GstVideoFrame * f, guint c, gint * w, gint * h, gint * depth)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  const guint plane = GST_VIDEO_FORMAT_INFO_PLANE (fi, c);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, plane);
  const gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (fi, c);
  gint offset = GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
  *depth = GST_VIDEO_FORMAT_INFO_DEPTH (fi, c);
  if (*depth > 8 && offset % 2)
    offset *= 2;
  *w = GST_VIDEO_FRAME_COMP_WIDTH (f, c);
  *h = GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  const guint8 *base = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, plane) +
      offset;
  guint16 *v = g_malloc ((gsize) * w * *h * sizeof *v);
  for (gint y = 0; y < *h; y++)
    for (gint x = 0; x < *w; x++) {
      const guint8 *p = base + y * stride + x * pstride;
      if (*depth <= 8) {
        v[y * *w + x] = p[0];   /* (a byte: the next may be past the end) */
        continue;
      }
      guint word = GST_VIDEO_FORMAT_INFO_IS_LE (fi) ?
          (guint) p[1] << 8 | p[0] : (guint) p[0] << 8 | p[1];
      v[y * *w + x] = (guint16) ((word >> shift) & ((1u << *depth) - 1));
    }
  return v;
}

/* values (w x h, packed) as a one-channel image of their depth */
static KConvImage
values_image (guint16 * v, guint8 * bytes, gint w, gint h, gint depth)
{
  KConvImage im = { bytes, w, h, w, 1, 1, {0} };
  if (depth > 8) {
    im.data = (guint8 *) v;
    im.stride = (ptrdiff_t) w *2;
    im.pixel_stride = 2;
    im.depth = depth;
  } else {
    for (gint i = 0; i < w * h; i++)
      bytes[i] = (guint8) v[i];
  }
  return im;
}

/* One frame of format at W x H through the element with the 5x3 matrix of
 * the reference filter ref (reflect border): each filtered component is
 * identical to the reference filtering it alone as a grey frame of its
 * depth (at its own resolution), every other component is the input's. */
static void
check_against_reference (KConvFilter * ref, const gchar * format, gint W,
    gint H, gboolean luma, guint32 seed)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), W,
      H);
  GstHarness *h = harness_new (format, W, H, "matrix",
      "1 2 -1 0 3; 1 -2 1 1 2; 0 -1 1 1 2", "planes", luma ? "luma" : "all",
      NULL);
  GstBuffer *in = random_buffer (info.size, seed);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s %dx%d: no output", format, W, H);
  GstVideoFrame fi, fo;
  gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
  gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    gboolean filtered = c != GST_VIDEO_COMP_A
        && !(luma && GST_VIDEO_INFO_IS_YUV (&info) && c != 0);
    gint w, hh, depth;
    guint16 *gin = component_values (&fi, c, &w, &hh, &depth);
    guint16 *gout = component_values (&fo, c, &w, &hh, &depth);
    guint16 *want = g_malloc ((gsize) w * hh * sizeof *want);
    if (filtered) {
      guint8 *b_in = g_malloc ((gsize) w * hh), *b_out =
          g_malloc ((gsize) w * hh);
      KConvImage src = values_image (gin, b_in, w, hh, depth);
      KConvImage dst = values_image (want, b_out, w, hh, depth);
      fail_unless (kconv_filter_run (ref, &src, &dst) == KCONV_OK);
      if (depth <= 8)
        for (gint p = 0; p < w * hh; p++)
          want[p] = b_out[p];
      g_free (b_in);
      g_free (b_out);
    } else {
      memcpy (want, gin, (gsize) w * hh * sizeof *want);
    }
    for (gint p = 0; p < w * hh; p++)
      fail_unless (gout[p] == want[p], "%s %dx%d planes=%s: component %u at "
          "%d,%d is %u, want %u", format, W, H, luma ? "luma" : "all", c,
          p % w, p / w, gout[p], want[p]);
    g_free (gin);
    g_free (gout);
    g_free (want);
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

static KConvFilter *
reference_5x3 (void)
{
  static float weights[] = { 1, 2, -1, 0, 3, 1, -2, 1, 1, 2, 0, -1, 1, 1, 2 };
  KConvKernel k = { 5, 3, weights, 0, 0, 0 };
  KConvOptions ref = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvFilter *f = NULL;
  fail_unless (kconv_filter_new (&k, KCONV_BORDER_REFLECT, &ref, &f) ==
      KCONV_OK);
  return f;
}

/* Every format, planes=all and luma, at an odd size. */
GST_START_TEST (test_formats_match_gray_reference)
{
  KConvFilter *f = reference_5x3 ();
  for (guint i = 0; i < formats->len; i++)
    for (int luma = 0; luma <= 1; luma++)
      check_against_reference (f, FORMAT (i), 37, 19, luma, 300 + i);
  kconv_filter_free (f);
}

GST_END_TEST;

/* The smallest frames and odd sizes in every format, the 5x3 kernel larger
 * than the frame (chroma of 1x1 included): still the reference's output. */
GST_START_TEST (test_edge_sizes)
{
  static const gint sizes[][2] = { {1, 1}, {1, 2}, {2, 1}, {3, 5}, {7, 3},
  {5, 1}
  };
  KConvFilter *f = reference_5x3 ();
  for (guint i = 0; i < formats->len; i++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      check_against_reference (f, FORMAT (i), sizes[s][0], sizes[s][1],
          s % 2, 500 + i * 8 + s);
  kconv_filter_free (f);
}

GST_END_TEST;

/* A colour photograph (tests/photos.sh; KCONV_PHOTOS names the folder)
 * as RGB at w x h, or where there is none, random colour samples. */
static GstBuffer *
photo_rgb_buffer (gint w, gint h)
{
  const gchar *dir = g_getenv ("KCONV_PHOTOS");
  guint8 *px = dir ? photo_load (dir, "astronaut", w, h, 3) : NULL;
  if (!px) {
    g_print ("no photographs in KCONV_PHOTOS: random colour samples\n");
    return random_buffer ((gsize) w * h * 3, 77);
  }
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) w * h * 3, NULL);
  gst_buffer_fill (buf, 0, px, (gsize) w * h * 3);
  free (px);
  return buf;
}

/* The frame rgb (RGB, w x h) converted by GStreamer to format. */
static GstBuffer *
convert_rgb (GstBuffer * rgb, gint w, gint h, const gchar * format)
{
  GstVideoInfo ii, oi;
  GstVideoFrame fi, fo;
  gst_video_info_set_format (&ii, GST_VIDEO_FORMAT_RGB, w, h);
  gst_video_info_set_format (&oi, gst_video_format_from_string (format), w, h);
  GstBuffer *out = gst_buffer_new_allocate (NULL, oi.size, NULL);
  GstVideoConverter *conv = gst_video_converter_new (&ii, &oi, NULL);
  gst_video_frame_map (&fi, &ii, rgb, GST_MAP_READ);
  gst_video_frame_map (&fo, &oi, out, GST_MAP_WRITE);
  gst_video_converter_frame (conv, &fi, &fo);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_video_converter_free (conv);
  return out;
}

/* Component c of frame buf (format at w x h) through a GRAY8 kconvfilter
 * with the given kernel settings: what that component must become when
 * the element filters it. */
static guint8 *
component_filtered_as_gray (GstBuffer * buf, const GstVideoInfo * info,
    guint c, const gchar * backend, const gchar * kernel, gint * cw, gint * ch)
{
  GstVideoFrame f;
  gst_video_frame_map (&f, info, buf, GST_MAP_READ);
  guint8 *gray = component_gray (&f, c, cw, ch);
  gst_video_frame_unmap (&f);
  GstHarness *h = harness_new ("GRAY8", *cw, *ch, "backend", backend,
      "kernel", kernel, NULL);
  GstVideoInfo gi;
  gst_video_info_set_format (&gi, GST_VIDEO_FORMAT_GRAY8, *cw, *ch);
  GstBuffer *in = gst_buffer_new_allocate (NULL, gi.size, NULL);
  GstVideoFrame gf;
  gst_video_frame_map (&gf, &gi, in, GST_MAP_WRITE);
  for (gint y = 0; y < *ch; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&gf, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&gf, 0), gray + y * *cw, *cw);
  gst_video_frame_unmap (&gf);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  gst_video_frame_map (&gf, &gi, out, GST_MAP_READ);
  for (gint y = 0; y < *ch; y++)
    memcpy (gray + y * *cw, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&gf, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&gf, 0), *cw);
  gst_video_frame_unmap (&gf);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return gray;
}

/* The README's first line on YUV video, planes at its default (auto): a
 * colour photograph as YUY2, NV12 and I420 through kernel=edge keeps its
 * luma exactly as a GRAY8 frame of that luma would become and gets neutral
 * chroma (a grey edge picture, not a green one); a smoothing kernel still
 * filters the chroma, each component as a GRAY8 frame of its own. */
GST_START_TEST (test_auto_planes_on_yuv_photo)
{
  static const gchar *yuv[] = { "YUY2", "NV12", "I420", "UYVY", "AYUV" };
  static const gchar *backends[] = { "cpu", "cuda" };
  const gint w = 1920, h = 1080;
  GstBuffer *rgb = photo_rgb_buffer (w, h);
  for (guint b = 0; b < G_N_ELEMENTS (backends); b++) {
    if (!check_backend_wanted (backends[b]))
      continue;
    for (guint i = 0; i < G_N_ELEMENTS (yuv); i++) {
      GstVideoInfo info;
      gst_video_info_set_format (&info, gst_video_format_from_string (yuv[i]),
          w, h);
      GstBuffer *in = convert_rgb (rgb, w, h, yuv[i]);
      for (int smooth = 0; smooth <= 1; smooth++) {
        const gchar *kernel = smooth ? "box" : "edge";
        GstHarness *hy = harness_new (yuv[i], w, h, "backend", backends[b],
            "kernel", kernel, NULL);
        GstBuffer *out = gst_harness_push_and_pull (hy, gst_buffer_ref (in));
        fail_unless (out != NULL);
        GstVideoFrame fo, fi;
        gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
        gst_video_frame_map (&fi, &info, in, GST_MAP_READ);
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
          gint cw, ch;
          guint8 *got = component_gray (&fo, c, &cw, &ch);
          guint8 *was = component_gray (&fi, c, &cw, &ch);
          guint8 *want;
          if (c == GST_VIDEO_COMP_A)
            want = g_memdup2 (was, (gsize) cw * ch);
          else if (c != GST_VIDEO_COMP_Y && !smooth)
            want = memset (g_malloc ((gsize) cw * ch), 128, (gsize) cw * ch);
          else
            want = component_filtered_as_gray (in, &info, c, backends[b],
                kernel, &cw, &ch);
          gint differ = 0, first = -1;
          for (gint p = 0; p < cw * ch; p++)
            if (got[p] != want[p] && differ++ == 0)
              first = p;
          fail_unless (differ == 0, "%s %s kernel=%s: component %u differs "
              "at %d samples, first at %d,%d (%u, want %u)", backends[b],
              yuv[i], kernel, c, differ, first % cw, first / cw,
              got[first], want[first]);
          /* the photograph's chroma is not flat: smoothing changed it */
          if (smooth && c != GST_VIDEO_COMP_Y && c != GST_VIDEO_COMP_A)
            fail_unless (memcmp (got, was, (gsize) cw * ch) != 0);
          g_free (got);
          g_free (was);
          g_free (want);
        }
        gst_video_frame_unmap (&fi);
        gst_video_frame_unmap (&fo);
        gst_buffer_unref (out);
        gst_harness_teardown (hy);
      }
      gst_buffer_unref (in);
    }
  }
  gst_buffer_unref (rgb);
}

GST_END_TEST;

/* A region of interest found upstream (kpatternmatch, a face detector)
 * still marks the same pixels after filtering: the meta goes through. */
GST_START_TEST (test_roi_meta_kept)
{
  GstHarness *h = harness_new ("GRAY8", 32, 16, "kernel", "edge", NULL);
  GstBuffer *in = random_buffer (32 * 16, 5);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 3, 4, 10, 8);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta_id (out, 0);
  fail_unless (roi != NULL, "the region of interest was dropped");
  fail_unless (roi->x == 3 && roi->y == 4 && roi->w == 10 && roi->h == 8);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Refusal messages are valid UTF-8 whatever the user typed (a bus handler
 * in Python decodes them), and cut by characters, not bytes. */
GST_START_TEST (test_refusal_text_is_utf8)
{
  GstHarness *h = harness_new ("GRAY8", 16, 8, NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GString *text = g_string_new ("1 2; ");
  for (int i = 0; i < 70; i++)
    g_string_append (text, "\xc3\xa9"); /* é, two bytes */
  g_string_append (text, "\xff");       /* not UTF-8 at all */
  g_object_set (h->element, "matrix", text->str, NULL);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL);
  GError *err = NULL;
  gchar *debug = NULL;
  gst_message_parse_warning (m, &err, &debug);
  fail_unless (g_utf8_validate (err->message, -1, NULL), "%s", err->message);
  fail_unless (strstr (err->message, "...") != NULL, "%s", err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (m);
  g_string_free (text, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Refusals waiting for the start are kept one a property, the last: ten
 * thousand refused sets cost no more than one, and the start's error
 * names the last value. */
GST_START_TEST (test_refusals_before_start_are_bounded)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! kconvfilter name=f ! "
      "fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  for (int i = 0; i < 10000; i++)
    g_object_set (f, "kernel-size", 2 * (i % 60) + 2, NULL);
  g_object_set (f, "kernel-size", 42, NULL);
  gst_object_unref (f);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless_equals_string (err->message,
      "kernel-size must be odd; 42 refused");
  g_error_free (err);
  gst_message_unref (m);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Threads in this process (Linux: /proc/self/status). */
static gint
threads_now (void)
{
  gchar *status = NULL;
  gint n = -1;
  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)) {
    const gchar *t = strstr (status, "\nThreads:");
    if (t)
      n = atoi (t + 9);
  }
  g_free (status);
  return n;
}

/* n-threads at the top of its range runs no more threads than there are
 * cores (1024 threads on 2 cores took 26 s a frame and 2.9 GB), and
 * gives the same output as one thread. */
GST_START_TEST (test_n_threads_capped_by_cores)
{
  gint before = threads_now ();
  GstHarness *many = harness_new ("RGBA", 640, 480, "kernel", "gaussian",
      "kernel-size", "9", "backend", "cpu", "n-threads", "1024", NULL);
  GstHarness *one = harness_new ("RGBA", 640, 480, "kernel", "gaussian",
      "kernel-size", "9", "backend", "cpu", "n-threads", "1", NULL);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstBuffer *in = random_buffer (info.size, 9);
  gint64 t0 = g_get_monotonic_time ();
  GstBuffer *a = gst_harness_push_and_pull (many, gst_buffer_ref (in));
  gint64 ms = (g_get_monotonic_time () - t0) / 1000;
  GstBuffer *b = gst_harness_push_and_pull (one, in);
  gint added = threads_now () - before;
  fail_unless (added <= (gint) g_get_num_processors () + 4, "%d threads "
      "more for %u cores", added, g_get_num_processors ());
  fail_unless (ms < 5000, "a 640x480 frame took %" G_GINT64_FORMAT " ms", ms);
  fail_unless_equals_int (frames_max_diff (&info, a, b), 0);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_harness_teardown (many);
  gst_harness_teardown (one);
}

GST_END_TEST;

/* Interlaced video is refused at negotiation by both elements (a kernel
 * over interleaved fields mixes two instants): interleaved, mixed and
 * alternate fields do not link; progressive video and caps that do not
 * say link as before. */
GST_START_TEST (test_interlaced_refused)
{
  static const gchar *elements[] = { "kconvfilter", "kpatternmatch" };
  static const gchar *modes[] = { "interleaved", "mixed", "alternate" };
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElementFactory *f = gst_element_factory_find (elements[e]);
    fail_unless (f != NULL);
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
      gchar *caps = g_strdup_printf ("video/x-raw,format=I420,width=64,"
          "height=48,interlace-mode=%s", modes[m]);
      GstCaps *c = gst_caps_from_string (caps);
      fail_if (gst_element_factory_can_sink_any_caps (f, c), "%s takes %s",
          elements[e], caps);
      gst_caps_unref (c);
      g_free (caps);
    }
    GstCaps *plain = gst_caps_from_string ("video/x-raw,format=I420,"
        "width=64,height=48");
    GstCaps *progressive = gst_caps_from_string ("video/x-raw,format=I420,"
        "width=64,height=48,interlace-mode=progressive");
    fail_unless (gst_element_factory_can_sink_any_caps (f, plain));
    fail_unless (gst_element_factory_can_sink_any_caps (f, progressive));
    gst_caps_unref (plain);
    gst_caps_unref (progressive);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* A webcam's YUY2 at 640x480 links and runs as the README's first line
 * has it, with no converter in front. */
GST_START_TEST (test_webcam_yuy2_line)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=YUY2,width=640,height=480,framerate=30/1 ! "
      "kconvfilter kernel=edge ! fakesink", &err);
  fail_unless (p != NULL && err == NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS,
      "the YUY2 pipeline did not reach EOS");
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* GRAY8 with a padded stride from GstVideoMeta: the element's output equals
 * the core's reference on the same samples. */
GST_START_TEST (test_video_meta_stride)
{
  const gint w = 23, hgt = 13, stride = 40;
  GstHarness *h = harness_new ("GRAY8", w, hgt,
      "matrix", "1 2 3; 4 -5 6; -7 8 9", "border", "wrap", NULL);
  GstBuffer *in = random_buffer (stride * hgt, 7);
  gsize offset[4] = { 0 };
  gint strides[4] = { stride };
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, w, hgt, 1, offset, strides);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));

  float weights[9] = { 1, 2, 3, 4, -5, 6, -7, 8, 9 };
  KConvKernel k = { 3, 3, weights, 0, 0, 0 };
  KConvOptions ref = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvFilter *f;
  guint8 expect[23 * 13];
  GstMapInfo mi;
  gst_buffer_map (in, &mi, GST_MAP_READ);
  KConvImage src = { mi.data, w, hgt, stride, 1, 1, {0} };
  KConvImage dst = { expect, w, hgt, w, 1, 1, {0} };
  fail_unless (kconv_filter_new (&k, KCONV_BORDER_WRAP, &ref, &f) == KCONV_OK);
  fail_unless (kconv_filter_run (f, &src, &dst) == KCONV_OK);
  kconv_filter_free (f);
  gst_buffer_unmap (in, &mi);

  GstVideoInfo info;
  GstVideoFrame fo;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  gst_video_frame_map (&fo, &info, out, GST_MAP_READ);
  for (gint y = 0; y < hgt; y++)
    fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0), expect + y * w, w) == 0,
        "row %d differs from the reference", y);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_identity_passthrough)
{
  GstHarness *h = harness_new ("RGBA", 16, 16, NULL);
  GstBuffer *in = random_buffer (16 * 16 * 4, 1);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  fail_unless (out == in, "identity should hand the buffer on untouched");
  gst_buffer_unref (out);

  g_object_set (h->element, "kernel", 1 /* edge */ , NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (h->element)));
  fail_unless (out != in);
  gst_buffer_unref (out);

  /* a 1x1 matrix of 3 divided by 3 is an identity too */
  g_object_set (h->element, "matrix", "3", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gint kernel_notifies;

static void
on_kernel_notify (GObject * obj, GParamSpec * pspec, gpointer data)
{
  kernel_notifies++;
}

GST_START_TEST (test_property_round_trip)
{
  GstElement *e = gst_element_factory_make ("kconvfilter", NULL);
  gchar *matrix;
  gint size;
  gdouble sigma, divisor, offset;
  guint threads;

  g_object_get (e, "matrix", &matrix, NULL);
  fail_unless_equals_string (matrix, "1");
  g_free (matrix);

  gst_util_set_object_arg (G_OBJECT (e), "kernel", "edge");
  g_object_get (e, "matrix", &matrix, NULL);
  fail_unless_equals_string (matrix, "-1 -1 -1; -1 8 -1; -1 -1 -1");
  g_free (matrix);

  gst_util_set_object_arg (G_OBJECT (e), "kernel", "box");
  g_object_set (e, "kernel-size", 5, "sigma", 1.5, "divisor", 7.0,
      "offset", -3.0, "n-threads", 3, NULL);
  g_object_get (e, "kernel-size", &size, "sigma", &sigma, "divisor",
      &divisor, "offset", &offset, "n-threads", &threads, NULL);
  fail_unless_equals_int (size, 5);
  fail_unless_equals_float (sigma, 1.5);
  fail_unless_equals_float (divisor, 7.0);
  fail_unless_equals_float (offset, -3.0);
  fail_unless_equals_int (threads, 3);
  g_object_get (e, "matrix", &matrix, NULL);
  fail_unless_equals_string (matrix,
      "1 1 1 1 1; 1 1 1 1 1; 1 1 1 1 1; 1 1 1 1 1; 1 1 1 1 1");
  g_free (matrix);

  const gchar *enums[][2] = {
    {"border", "wrap"}, {"absolute", "true"}, {"planes", "luma"},
    {"backend", "cpu"}, {"kernel", "sobel-y"}, {"gpu-wait", "block"},
    {"copy-streams", "shared-up"}
  };
  for (guint i = 0; i < G_N_ELEMENTS (enums); i++) {
    GValue v = G_VALUE_INIT;
    gst_util_set_object_arg (G_OBJECT (e), enums[i][0], enums[i][1]);
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        enums[i][0]);
    g_value_init (&v, ps->value_type);
    g_object_get_property (G_OBJECT (e), enums[i][0], &v);
    GEnumValue *ev = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek
            (ps->value_type)), g_value_get_enum (&v));
    fail_unless_equals_string (ev->value_nick, enums[i][1]);
    g_value_unset (&v);
  }

  /* the matrix selects custom, tells so, and reads back canonical */
  g_signal_connect (e, "notify::kernel", G_CALLBACK (on_kernel_notify), NULL);
  kernel_notifies = 0;
  g_object_set (e, "matrix", " 0.5,0.25 ; -1  2 ", NULL);
  fail_unless_equals_int (kernel_notifies, 1);
  g_object_get (e, "matrix", &matrix, NULL);
  fail_unless_equals_string (matrix, "0.5 0.25; -1 2");
  g_free (matrix);
  gst_util_set_object_arg (G_OBJECT (e), "kernel", "custom");
  g_object_get (e, "kernel", &size, NULL);
  fail_unless_equals_int (size, 1000);  /* custom */

  /* frames-in-flight belongs to the base class */
  g_object_set (e, "frames-in-flight", 3, NULL);
  g_object_get (e, "frames-in-flight", &threads, NULL);
  fail_unless_equals_int (threads, 3);
  gst_kconv_check_every_property_reads (e);
  gst_object_unref (e);
}

GST_END_TEST;

/* The warnings waiting on a bus, emptied; each one's text must contain
 * `expect` when it is not NULL. */
static guint
count_warnings (GstBus * bus, const gchar * expect)
{
  guint n = 0;
  GstMessage *m;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gst_message_parse_warning (m, &err, NULL);
    if (expect)
      fail_unless (strstr (err->message, expect) != NULL,
          "warning \"%s\" does not mention \"%s\"", err->message, expect);
    g_error_free (err);
    gst_message_unref (m);
    n++;
  }
  return n;
}

/* An invalid value keeps the previous one and posts a warning that says
 * what was wrong on the element's bus.  Out-of-range numbers are GLib's to
 * refuse (a g_warning, before the element sees them). */
GST_START_TEST (test_invalid_values_refused)
{
  /* a streaming element: refusals are warnings and the stream goes on */
  GstHarness *h = harness_new ("GRAY8", 16, 8, NULL);
  GstElement *e = h->element;
  GstBus *bus = gst_bus_new ();
  gchar *matrix;
  gint size;
  gdouble sigma;

  gst_element_set_bus (e, bus);
  g_object_set (e, "matrix", "1 2; 3 4", NULL);
  const gchar *bad[] = { "1 2; 3", "", "1 x", "nan", "1; inf", "1;;2",
    "1,,2", "1 2;", ",1"
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_object_set (e, "matrix", bad[i], NULL);
    fail_unless_equals_int (count_warnings (bus, "invalid matrix"), 1);
    g_object_get (e, "matrix", &matrix, NULL);
    fail_unless_equals_string (matrix, "1 2; 3 4");
    g_free (matrix);
  }

  g_object_set (e, "kernel-size", 7, NULL);
  g_object_set (e, "kernel-size", 8, NULL);
  fail_unless_equals_int (count_warnings (bus, "kernel-size must be odd"), 1);
  ASSERT_WARNING (g_object_set (e, "kernel-size", 123, NULL));
  g_object_get (e, "kernel-size", &size, NULL);
  fail_unless_equals_int (size, 7);

  g_object_set (e, "sigma", 2.0, NULL);
  ASSERT_WARNING (g_object_set (e, "sigma", NAN, NULL));
  ASSERT_WARNING (g_object_set (e, "divisor", INFINITY, NULL));
  ASSERT_WARNING (g_object_set (e, "offset", NAN, NULL));
  ASSERT_WARNING (g_object_set (e, "sigma", -1.0, NULL));
  g_object_get (e, "sigma", &sigma, NULL);
  fail_unless_equals_float (sigma, 2.0);
  fail_unless_equals_int (count_warnings (bus, NULL), 0);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The kernel property offers the core's named kernels, each at its value
 * in the core, and custom past them all; the backend property the core's
 * backends meant for elements. */
GST_START_TEST (test_kernel_values_from_the_core)
{
  GstElement *e = gst_element_factory_make ("kconvfilter", NULL);
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "kernel");
  GEnumClass *values = G_PARAM_SPEC_ENUM (spec)->enum_class;
  fail_unless_equals_int (values->n_values, KCONV_NAMED_COUNT + 1);
  for (gint i = 0; i < KCONV_NAMED_COUNT; i++) {
    GEnumValue *v = g_enum_get_value (values, i);
    fail_unless (v != NULL, "no kernel value %d", i);
    fail_unless_equals_string (v->value_nick,
        kconv_named_kernel_info (i)->nick);
  }
  GEnumValue *custom = g_enum_get_value_by_nick (values, "custom");
  fail_unless (custom != NULL && custom->value >= KCONV_NAMED_COUNT);

  spec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "backend");
  values = G_PARAM_SPEC_ENUM (spec)->enum_class;
  guint offered = 0;
  for (gint i = 0; i < KCONV_BACKEND_COUNT; i++) {
    const KConvBackendInfo *b = kconv_backend_info (i);
    GEnumValue *v = g_enum_get_value_by_nick (values, b->name);
    fail_unless ((v != NULL) == (b->for_elements != 0), "backend %s", b->name);
    fail_unless (!v || v->value == (gint) b->id);
    offered += b->for_elements;
  }
  fail_unless_equals_int (values->n_values, offered);
  gst_object_unref (e);
}

GST_END_TEST;

/* kernel-size follows a controller, frame by frame: a linear ramp from 3
 * to 7 passes the even sizes, which round up to odd without a warning. */
GST_START_TEST (test_controlled_kernel_size)
{
  GstHarness *h = harness_new ("GRAY8", 16, 8, "kernel", "box", NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_object_add_control_binding (GST_OBJECT (h->element),
      gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
          "kernel-size", cs));
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0,
      3);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      GST_SECOND, 7);
  const gint want[] = { 3, 5, 5, 7, 7 };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    GstBuffer *in = random_buffer (16 * 8, i);
    GST_BUFFER_PTS (in) = i * GST_SECOND / 4;
    gst_buffer_unref (gst_harness_push_and_pull (h, in));
    gint size;
    g_object_get (h->element, "kernel-size", &size, NULL);
    fail_unless_equals_int (size, want[i]);
  }
  fail_unless_equals_int (count_warnings (bus, NULL), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_object_unref (cs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* kernel-size with a kernel it does not size (edge, sobel, a matrix) is
 * a warning that says so, once; with box it is not. */
GST_START_TEST (test_kernel_size_without_effect)
{
  static const struct
  {
    const gchar *kernel;
    gint warnings;
  } cases[] = { {"edge", 1}, {"sobel-x", 1}, {"custom", 1}, {"box", 0} };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = harness_new ("GRAY8", 16, 8, "matrix", "1 0; 0 -1",
        NULL);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", cases[i].kernel);
    g_object_set (h->element, "kernel-size", 5, NULL);
    for (int f = 0; f < 3; f++)
      gst_buffer_unref (gst_harness_push_and_pull (h, random_buffer (16 * 8,
                  f)));
    fail_unless_equals_int (count_warnings (bus, "has no effect with kernel"),
        cases[i].warnings);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static void
count_frame (guint * frames)
{
  (*frames)++;
}

/* Runs desc to EOS or an error; returns the error's text (g_free it) or
 * NULL at EOS, and counts the frames that reached the sink named "out". */
static gchar *
run_to_end (const gchar * desc, guint * frames)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL);
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_object_set (out, "signal-handoffs", TRUE, NULL);
  *frames = 0;
  g_signal_connect_swapped (out, "handoff", G_CALLBACK (count_frame), frames);
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "neither EOS nor an error");
  gchar *text = NULL;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return text;
}

/* gst-launch sets properties before the element is in a pipeline: a value
 * refused then fails the start with an ERROR naming every refused value,
 * and no frame goes through unfiltered; a valid value set after the
 * refused one takes the refusal back. */
GST_START_TEST (test_refusal_before_pipeline)
{
  guint frames;
  gchar *err = run_to_end ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! "
      "kconvfilter kernel-size=4 matrix=\"1 2; 3\" ! fakesink name=out",
      &frames);
  fail_unless (err != NULL, "the pipeline ran with refused values");
  fail_unless (strstr (err, "kernel-size must be odd; 4 refused") != NULL,
      "%s", err);
  fail_unless (strstr (err, "invalid matrix \"1 2; 3\"") != NULL, "%s", err);
  fail_unless_equals_int (frames, 0);
  g_free (err);

  err = run_to_end ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! "
      "kconvfilter kernel=box kernel-size=4 kernel-size=5 ! fakesink name=out",
      &frames);
  fail_unless (err == NULL, "%s", err);
  fail_unless_equals_int (frames, 2);
}

GST_END_TEST;

GST_START_TEST (test_presets)
{
  GstElement *e = gst_element_factory_make ("kconvfilter", NULL);
  gchar **names = gst_preset_get_preset_names (GST_PRESET (e));
  gint size, kernel;

  fail_unless (names != NULL, "no presets found (GST_PRESET_PATH?)");
  fail_unless (g_strv_length (names) >= 8, "only %u presets",
      g_strv_length (names));
  /* every shipped preset sets border and planes (all of them to the
   * defaults), so none inherits them from what was set before */
  for (guint i = 0; names[i]; i++) {
    gst_util_set_object_arg (G_OBJECT (e), "border", "wrap");
    gst_util_set_object_arg (G_OBJECT (e), "planes", "luma");
    fail_unless (gst_preset_load_preset (GST_PRESET (e), names[i]),
        "preset %s does not load", names[i]);
    gint border, planes;
    g_object_get (e, "border", &border, "planes", &planes, NULL);
    fail_unless_equals_int (border, 2); /* reflect */
    fail_unless_equals_int (planes, 2); /* auto */
  }
  g_strfreev (names);

  fail_unless (gst_preset_load_preset (GST_PRESET (e), "blur-strong"));
  g_object_get (e, "kernel", &kernel, "kernel-size", &size, NULL);
  fail_unless_equals_int (kernel, 5);   /* gaussian */
  fail_unless_equals_int (size, 15);

  fail_unless (gst_preset_load_preset (GST_PRESET (e), "emboss-grey"));
  gchar *matrix;
  g_object_get (e, "kernel", &kernel, "matrix", &matrix, NULL);
  fail_unless_equals_int (kernel, 1000);        /* custom */
  fail_unless_equals_string (matrix, "-1 -1 0; -1 0 1; 0 1 1");
  g_free (matrix);
  gst_object_unref (e);
}

GST_END_TEST;

/* Saved presets come back as they were saved, and hold only the filter's
 * own settings: not the element's name, nor where it runs.  (The tests
 * save under XDG_DATA_HOME in the build folder.) */
GST_START_TEST (test_presets_round_trip)
{
  GstElement *e = gst_element_factory_make ("kconvfilter", "saver");
  GstElement *l = gst_element_factory_make ("kconvfilter", "loader");
  gint kernel, size, border;
  gchar *matrix;

  /* a named kernel stays a name */
  gst_util_set_object_arg (G_OBJECT (e), "kernel", "gaussian");
  g_object_set (e, "kernel-size", 11, "n-threads", 1, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "border", "replicate");
  fail_unless (gst_preset_save_preset (GST_PRESET (e), "test-named"));
  fail_unless (gst_preset_load_preset (GST_PRESET (l), "test-named"));
  g_object_get (l, "kernel", &kernel, "kernel-size", &size, "border",
      &border, NULL);
  fail_unless_equals_int (kernel, 5);   /* gaussian */
  fail_unless_equals_int (size, 11);
  fail_unless_equals_int (border, 1);   /* replicate */
  fail_unless_equals_string (GST_OBJECT_NAME (l), "loader");
  guint threads;
  g_object_get (l, "n-threads", &threads, NULL);
  fail_unless_equals_int (threads, 0);

  /* a custom matrix with spaces, signs and fractions */
  g_object_set (e, "matrix", "0.5 -1 0.25; 2 0 -3", "offset", 128.0, NULL);
  fail_unless (gst_preset_save_preset (GST_PRESET (e), "test-custom"));
  fail_unless (gst_preset_load_preset (GST_PRESET (l), "test-custom"));
  gdouble offset;
  g_object_get (l, "kernel", &kernel, "matrix", &matrix, "offset", &offset,
      NULL);
  fail_unless_equals_int (kernel, 1000);        /* custom */
  fail_unless_equals_string (matrix, "0.5 -1 0.25; 2 0 -3");
  fail_unless_equals_float (offset, 128.0);
  g_free (matrix);

  /* saved again over the custom one as a named kernel: no stale matrix */
  gst_util_set_object_arg (G_OBJECT (e), "kernel", "sobel-x");
  fail_unless (gst_preset_save_preset (GST_PRESET (e), "test-custom"));
  fail_unless (gst_preset_load_preset (GST_PRESET (l), "test-custom"));
  g_object_get (l, "kernel", &kernel, NULL);
  fail_unless_equals_int (kernel, 6);   /* sobel-x */

  /* saved after loading one with a sized kernel, and over a preset of
   * that name that had a kernel-size: only what the saved kernel uses (a
   * kernel-size kept with kernel=custom warned at every load; a warning
   * here fails the test) */
  fail_unless (gst_preset_load_preset (GST_PRESET (e), "blur-strong"));
  fail_unless (gst_preset_save_preset (GST_PRESET (e), "test-after-load"));
  g_object_set (e, "matrix", "1 2 1", NULL);
  fail_unless (gst_preset_save_preset (GST_PRESET (e), "test-after-load"));
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=GRAY8,width=16,height=8 ! kconvfilter name=f "
      "backend=cpu ! fakesink", NULL);
  GstElement *fresh = gst_bin_get_by_name (GST_BIN (pipe), "f");
  fail_unless (gst_preset_load_preset (GST_PRESET (fresh), "test-after-load"));
  GKeyFile *file = g_key_file_new ();
  gchar *prs = g_build_filename (g_get_user_data_dir (), "gstreamer-1.0",
      "presets", "GstKConvFilter.prs", NULL);
  fail_unless (g_key_file_load_from_file (file, prs, G_KEY_FILE_NONE, NULL));
  fail_if (g_key_file_has_key (file, "test-after-load", "kernel-size", NULL)
      || g_key_file_has_key (file, "test-after-load", "sigma", NULL),
      "kernel-size or sigma kept with kernel=custom");
  g_key_file_free (file);
  g_free (prs);
  g_object_get (fresh, "kernel", &kernel, "kernel-size", &size, NULL);
  fail_unless_equals_int (kernel, 1000);        /* custom */
  fail_unless_equals_int (size, 3);
  gst_object_unref (fresh);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "loading the preset warned, or the stream failed");
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  fail_unless (gst_preset_delete_preset (GST_PRESET (e), "test-after-load"));

  /* what a preset holds: the element's own settings, the kernel first
   * (what refines it loads after it); not where it computes */
  gchar **keys = gst_preset_get_property_names (GST_PRESET (e));
  gchar *joined = g_strjoinv (",", keys);
  fail_unless_equals_string (joined, "kernel,kernel-size,sigma,matrix,"
      "divisor,offset,absolute,border,planes,regions,roi-types,"
      "region-margin,region-list");
  g_free (joined);
  g_strfreev (keys);

  /* no property warnings on the way (a g_warning fails a check test) */
  fail_unless (gst_preset_delete_preset (GST_PRESET (e), "test-named"));
  fail_unless (gst_preset_delete_preset (GST_PRESET (e), "test-custom"));
  gst_object_unref (e);
  gst_object_unref (l);
}

GST_END_TEST;

/* Properties hammered from another thread while frames flow: no crash, no
 * lost frame, every output the right size. */
GST_START_TEST (test_property_stress_while_streaming)
{
  GstHarness *h = harness_new ("RGBA", 64, 48, "kernel", "box", NULL);
  GValue kernel = G_VALUE_INIT, matrix = G_VALUE_INIT, size = G_VALUE_INIT;
  gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "sharpen");
  g_value_init (&kernel, G_TYPE_INT);
  g_value_init (&matrix, G_TYPE_STRING);
  g_value_init (&size, G_TYPE_INT);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS
      (h->element), "kernel");
  g_value_unset (&kernel);
  g_value_init (&kernel, ps->value_type);
  g_value_set_enum (&kernel, 5);        /* gaussian */
  g_value_set_string (&matrix, "1 2 1; 0 0 0; -1 -2 -1");
  g_value_set_int (&size, 9);

  GstHarnessThread *t1 = gst_harness_stress_property_start_full (h,
      "kernel", &kernel, 100);
  GstHarnessThread *t2 = gst_harness_stress_property_start_full (h,
      "matrix", &matrix, 100);
  GstHarnessThread *t3 = gst_harness_stress_property_start_full (h,
      "kernel-size", &size, 100);

  GstBuffer *in = random_buffer (64 * 48 * 4, 3);
  for (int i = 0; i < 200; i++) {
    GstBuffer *b = gst_buffer_copy (in);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    fail_unless_equals_int (gst_buffer_get_size (out), 64 * 48 * 4);
    gst_buffer_unref (out);
  }
  gst_harness_stress_thread_stop (t1);
  gst_harness_stress_thread_stop (t2);
  gst_harness_stress_thread_stop (t3);
  gst_buffer_unref (in);
  g_value_unset (&kernel);
  g_value_unset (&matrix);
  g_value_unset (&size);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  GstHarness *h = harness_new ("RGB", 32, 24, "kernel", "gaussian", NULL);
  GstBuffer *out;

  out = gst_harness_push_and_pull (h, random_buffer (32 * 24 * 3, 1));
  fail_unless_equals_int (gst_buffer_get_size (out), 32 * 24 * 3);
  gst_buffer_unref (out);

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=7,height=5,framerate=30/1");
  GstBuffer *in = random_buffer (8 * 5, 2);     /* stride rounds up to 8 */
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_get_size (out), 8 * 5);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo info;
  gst_video_info_from_caps (&info, caps);
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 7);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend=cuda where CUDA cannot run: a clear error, never a silent CPU run */
GST_START_TEST (test_cuda_unavailable_is_an_error)
{
  if (kconv_backend_available (KCONV_BACKEND_CUDA))
    return;
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "kconvfilter kernel=edge backend=cuda ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "expected an error");
  GError *err;
  gchar *debug;
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (strstr (err->message, "backend=cuda") != NULL, "%s",
      err->message);
  fail_unless (debug && strstr (debug, "CUDA") != NULL, "%s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* The largest difference between the values of two frames' components
 * (16-bit words decoded) */
static gint
frames_max_value_diff (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  GstVideoFrame fa, fb;
  gint worst = 0;
  gst_video_frame_map (&fa, info, a, GST_MAP_READ);
  gst_video_frame_map (&fb, info, b, GST_MAP_READ);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    gint w, h, depth;
    guint16 *va = component_values (&fa, c, &w, &h, &depth);
    guint16 *vb = component_values (&fb, c, &w, &h, &depth);
    for (gint i = 0; i < w * h; i++)
      worst = MAX (worst, ABS ((gint) va[i] - (gint) vb[i]));
    g_free (va);
    g_free (vb);
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return worst;
}

/* Where a GPU exists: backend=cuda gives the same bytes as backend=cpu on
 * every format (exact kernels) and within 1 for float ones. */
GST_START_TEST (test_cuda_matches_cpu)
{
  if (!check_backend_wanted ("cuda"))
    return;
  const gchar *kernels[][4] = {
    {"kernel", "edge", "border", "replicate"},
    {"kernel", "box", "kernel-size", "31"},
    {"matrix", "1 2 3 4 5; -1 -2 -3 -4 -5; 9 8 7 6 5", "border", "wrap"},
    {"kernel", "gaussian", "kernel-size", "9"},
  };
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++) {
    for (guint i = 0; i < formats->len; i++) {
      GstVideoInfo info;
      gst_video_info_set_format (&info,
          gst_video_format_from_string (FORMAT (i)), 97, 45);
      GstHarness *hc = harness_new (FORMAT (i), 97, 45, "backend", "cuda",
          kernels[k][0], kernels[k][1], kernels[k][2], kernels[k][3], NULL);
      GstHarness *hp = harness_new (FORMAT (i), 97, 45, "backend", "cpu",
          kernels[k][0], kernels[k][1], kernels[k][2], kernels[k][3], NULL);
      for (int f = 0; f < 3; f++) {
        GstBuffer *in = random_buffer (info.size, 1000 * k + 10 * i + f);
        GstBuffer *oc = gst_harness_push_and_pull (hc, gst_buffer_ref (in));
        GstBuffer *op = gst_harness_push_and_pull (hp, in);
        /* bytes, padding included; deeper samples by value */
        gint worst = GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8 ?
            frames_max_value_diff (&info, oc, op) :
            frames_max_diff (&info, oc, op);
        /* the gaussian is inexact everywhere, and so is the 31x31 box
         * past 4097 (12 bits; kconv.h): within 1 */
        const gboolean box_inexact = k == 1
            && GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 12;
        fail_unless (worst <= (k == 3 || box_inexact ? 1 : 0), "%s, %s=%s: "
            "cuda and cpu differ by %d", FORMAT (i), kernels[k][0],
            kernels[k][1], worst);
        gst_buffer_unref (oc);
        gst_buffer_unref (op);
      }
      gst_harness_teardown (hc);
      gst_harness_teardown (hp);
    }
  }
}

GST_END_TEST;

/* The first message of a pipeline's bus: an error or EOS (NULL: neither in
 * 10 s) */
static GstMessage *
run_launch_line (const gchar * line)
{
  GstElement *pipe = gst_parse_launch (line, NULL);
  fail_unless (pipe != NULL, "%s", line);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return msg;
}

/* 10- and 16-bit sources link to the element with no videoconvert and run
 * to the end, on every backend there is. */
GST_START_TEST (test_deep_launch_lines)
{
  static const gchar *const lines[] = {
    "videotestsrc num-buffers=3 ! video/x-raw,format=P010_10LE,width=97,"
        "height=45 ! kconvfilter kernel=edge backend=%s ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=GRAY16_BE,width=64,"
        "height=33 ! kconvfilter kernel=gaussian kernel-size=7 backend=%s ! "
        "fakesink",
    "videotestsrc num-buffers=3 is-live=true ! video/x-raw,format=I422_10LE,"
        "width=65,height=31 ! kconvfilter kernel=sharpen backend=%s ! fakesink",
  };
  static const gchar *const backends[] = { "auto", "cpu", "cuda" };
  for (guint b = 0; b < G_N_ELEMENTS (backends); b++) {
    if (b == 2 && !kconv_backend_available (KCONV_BACKEND_CUDA))
      continue;
    for (guint i = 0; i < G_N_ELEMENTS (lines); i++) {
      gchar *line = g_strdup_printf (lines[i], backends[b]);
      GstMessage *msg = run_launch_line (line);
      fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s",
          line);
      gst_message_unref (msg);
      g_free (line);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_short_buffer_names_both_sizes)
{
  check_short_buffer ("kconvfilter", "kernel=edge");
}

GST_END_TEST;

/* a GstVideoMeta that lies about the buffer is refused, never trusted */
GST_START_TEST (test_lying_video_meta_refused)
{
  check_lying_video_meta ("kconvfilter", "kernel=edge");
}

GST_END_TEST;

static Suite *
kconvfilter_suite (void)
{
  formats = check_formats_of ("kconvfilter");
  Suite *s = suite_create ("kconvfilter");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_formats_flat_blur);
  tcase_add_test (tc, test_formats_alpha_and_planes);
  tcase_add_test (tc, test_formats_match_gray_reference);
  tcase_add_test (tc, test_webcam_yuy2_line);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_roi_meta_kept);
  tcase_add_test (tc, test_auto_planes_on_yuv_photo);
  tcase_add_test (tc, test_video_meta_stride);
  tcase_add_test (tc, test_identity_passthrough);
  tcase_add_test (tc, test_property_round_trip);
  tcase_add_test (tc, test_invalid_values_refused);
  tcase_add_test (tc, test_refusal_before_pipeline);
  tcase_add_test (tc, test_n_threads_capped_by_cores);
  tcase_add_test (tc, test_refusal_text_is_utf8);
  tcase_add_test (tc, test_refusals_before_start_are_bounded);
  tcase_add_test (tc, test_kernel_values_from_the_core);
  tcase_add_test (tc, test_controlled_kernel_size);
  tcase_add_test (tc, test_kernel_size_without_effect);
  tcase_add_test (tc, test_presets);
  tcase_add_test (tc, test_presets_round_trip);
  tcase_add_test (tc, test_property_stress_while_streaming);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_cuda_unavailable_is_an_error);
  tcase_add_test (tc, test_deep_launch_lines);
  tcase_add_test (tc, test_short_buffer_names_both_sizes);
  tcase_add_test (tc, test_lying_video_meta_refused);
  tcase_add_test (tc, test_edge_sizes);
  tcase_add_test (tc, test_cuda_matches_cpu);
  return s;
}

KCONV_CHECK_MAIN (kconvfilter);
