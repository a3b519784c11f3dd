/* kconv: a template file is compared in the frames' own colour space
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A photograph is encoded as a JPEG and decoded by jpegdec (I420, full
 * range, as every JPEG still and Motion-JPEG camera arrives); its RGBA is
 * the picture a user cuts a template from (a PNG file).  The same pixels
 * are then searched as RGBA, GRAY8, the decoder's own I420 (full range),
 * I420 BT.601 and BT.709 and NV12 BT.709 (video range) and P010 BT.2020,
 * in one stream whose caps change between them (the template follows
 * their colorimetry): each must find the template where it was cut at the
 * defaults, scoring at most 0.01 there (rounding; luma has no chroma
 * subsampling).  A luma made by one matrix and range for every YUV frame
 * scored 0.03-0.05 on the full-range frames.  And a template handed over
 * with set-template in the frames' own space (a crop of the decoder's
 * I420, or of the GRAY8 frame) is taken as it is: a SAD of 0 where it
 * was cut (through RGB and back it was not).
 *   test-template-colour            (KCONV_PHOTOS: tests/photos.sh's folder)
 * KCONV_TEST_BACKEND picks the backend (cpu by default).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include "photo.h"

#define W 1920
#define H 1080
#define T 64                    /* the template's side */

static int failures;

static GstSample *
convert (GstSample * from, const gchar * caps_text)
{
  GstCaps *caps = gst_caps_from_string (caps_text);
  GError *err = NULL;
  GstSample *to = gst_video_convert_sample (from, caps, 20 * GST_SECOND, &err);
  gst_caps_unref (caps);
  if (!to)
    g_error ("converting to %s: %s", caps_text, err ? err->message : "?");
  return to;
}

/* The JPEG's frame as jpegdec hands it over */
static GstSample *
jpeg_decode (GstSample * jpeg)
{
  GstElement *p = gst_parse_launch ("appsrc name=src ! jpegdec ! "
      "video/x-raw,format=I420 ! appsink name=sink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_app_src_push_sample (GST_APP_SRC (src), jpeg);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstSample *out = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      20 * GST_SECOND);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  if (!out)
    g_error ("jpegdec gave no frame");
  return out;
}

/* The 64x64 block of the grey picture (on a grid of 32) with the most
 * variance: a template with texture */
static void
textured_place (const guint8 * rgb, gint * px, gint * py)
{
  gdouble best = -1;
  for (gint y = 0; y + T <= H; y += 32)
    for (gint x = 0; x + T <= W; x += 32) {
      gdouble s = 0, s2 = 0;
      for (gint j = 0; j < T; j++)
        for (gint i = 0; i < T; i++) {
          const guint8 *p = rgb + 3 * ((gsize) (y + j) * W + x + i);
          const gdouble v = (p[0] + p[1] + p[2]) / 3.0;
          s += v;
          s2 += v * v;
        }
      const gdouble var = s2 / (T * T) - (s / (T * T)) * (s / (T * T));
      if (var > best) {
        best = var;
        *px = x;
        *py = y;
      }
    }
}

/* The block at x, y of an RGBA picture, as a PNG file */
static gchar *
write_template (GstSample * rgba, gint x, gint y, const gchar * name)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gst_video_info_from_caps (&info, gst_sample_get_caps (rgba));
  gst_video_frame_map (&f, &info, gst_sample_get_buffer (rgba), GST_MAP_READ);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, T * T * 4, NULL);
  for (gint j = 0; j < T; j++)
    gst_buffer_fill (buf, (gsize) j * T * 4, (const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + (gsize) (y + j) *
        GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + (gsize) x * 4, T * 4);
  gst_video_frame_unmap (&f);
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,width=64,"
      "height=64,framerate=0/1");
  GstSample *block = gst_sample_new (buf, caps, NULL, NULL);
  GstSample *png = convert (block, "image/png");
  GstMapInfo map;
  gst_buffer_map (gst_sample_get_buffer (png), &map, GST_MAP_READ);
  gchar *path = g_strdup_printf ("%s/kconv-colour-%s-%d.png", g_get_tmp_dir (),
      name, (int) getpid ());
  if (!g_file_set_contents (path, (const gchar *) map.data, map.size, NULL))
    g_error ("could not write %s", path);
  gst_buffer_unmap (gst_sample_get_buffer (png), &map);
  gst_sample_unref (png);
  gst_sample_unref (block);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
  return path;
}

/* The T x T block at x, y (even) of a planar 8-bit frame, as a sample */
static GstSample *
crop (GstSample * frame, gint x, gint y)
{
  GstVideoInfo in, out;
  GstVideoFrame src, dst;
  gst_video_info_from_caps (&in, gst_sample_get_caps (frame));
  gst_video_info_set_format (&out, GST_VIDEO_INFO_FORMAT (&in), T, T);
  out.colorimetry = in.colorimetry;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, out.size, NULL);
  gst_video_frame_map (&src, &in, gst_sample_get_buffer (frame), GST_MAP_READ);
  gst_video_frame_map (&dst, &out, buf, GST_MAP_WRITE);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&in); c++) {
    const gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&dst, c);
    const gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&dst, c);
    const gint cx = GST_VIDEO_SUB_SCALE (in.finfo->w_sub[c], x);
    const gint cy = GST_VIDEO_SUB_SCALE (in.finfo->h_sub[c], y);
    for (gint j = 0; j < ch; j++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&dst, c) +
          j * GST_VIDEO_FRAME_COMP_STRIDE (&dst, c),
          (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&src, c) +
          (cy + j) * GST_VIDEO_FRAME_COMP_STRIDE (&src, c) + cx, cw);
  }
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  GstCaps *caps = gst_video_info_to_caps (&out);
  GstSample *s = gst_sample_new (buf, caps, NULL, NULL);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
  return s;
}

/* set-template with a crop of frame at x0, y0: found there with SAD 0 */
static void
check_given (GstSample * frame, gint x0, gint y0, const gchar * name,
    const gchar * what, const gchar * backend)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "kpatternmatch name=m backend=%s frames-in-flight=1 ! fakesink",
      backend);
  GstElement *p = gst_parse_launch (desc, NULL);
  g_free (desc);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *m = gst_bin_get_by_name (GST_BIN (p), "m");
  GstSample *t = crop (frame, x0, y0);
  gboolean taken = FALSE;
  g_signal_emit_by_name (m, "set-template", t, &taken);
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_app_src_push_sample (GST_APP_SRC (src), frame);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
  gint x = -1, y = -1;
  guint64 sad = 1;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
    gst_structure_get (gst_message_get_structure (msg), "x", G_TYPE_INT, &x,
        "y", G_TYPE_INT, &y, "sad", G_TYPE_UINT64, &sad, NULL);
  const gboolean ok = taken && x == x0 && y == y0 && sad == 0;
  printf ("%-9s %-26s %s: x %d y %d sad %" G_GUINT64_FORMAT "\n", name, what,
      ok ? "ok" : "FAILED", x, y, sad);
  failures += !ok;
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_sample_unref (t);
  gst_object_unref (bus);
  gst_object_unref (m);
  gst_object_unref (src);
  gst_object_unref (p);
}

static void
check_photo (const gchar * dir, const gchar * name, const gchar * backend)
{
  guint8 *rgb = photo_load (dir, name, W, H, 3);
  if (!rgb)
    g_error ("no photograph %s in %s", name, dir);
  gint x0 = 0, y0 = 0;
  textured_place (rgb, &x0, &y0);
  GstCaps *rgb_caps = gst_caps_from_string ("video/x-raw,format=RGB,"
      "width=1920,height=1080,framerate=0/1");
  GstBuffer *rgb_buf = gst_buffer_new_wrapped (rgb, (gsize) W * H * 3);
  GstSample *photo = gst_sample_new (rgb_buf, rgb_caps, NULL, NULL);
  /* (a JPEG of YUV 4:2:0, as cameras write them) */
  GstSample *yuv = convert (photo, "video/x-raw,format=I420");
  GstSample *jpeg = convert (yuv, "image/jpeg");
  GstSample *full = jpeg_decode (jpeg);
  GstSample *rgba = convert (full, "video/x-raw,format=RGBA");
  gchar *tmpl = write_template (rgba, x0, y0, name);

  struct
  {
    const gchar *what;
    GstSample *frame;
  } cases[] = {
    {"RGBA", gst_sample_ref (rgba)},
    {"GRAY8", convert (rgba, "video/x-raw,format=GRAY8")},
    {"I420 full range (jpegdec)", gst_sample_ref (full)},
    {"I420 BT.601", convert (rgba, "video/x-raw,format=I420,"
              "colorimetry=bt601")},
    {"I420 BT.709", convert (rgba, "video/x-raw,format=I420,"
              "colorimetry=bt709")},
    {"NV12 BT.709", convert (rgba, "video/x-raw,format=NV12,"
              "colorimetry=bt709")},
    {"P010 BT.2020", convert (rgba, "video/x-raw,format=P010_10LE,"
              "colorimetry=bt2020")},
    {"I420 full range again", gst_sample_ref (full)},
  };
  /* set-template: a crop of the decoder's frame, and of the grey one */
  check_given (full, x0, y0, name, "set-template, I420 full", backend);
  check_given (cases[1].frame, x0, y0, name, "set-template, GRAY8", backend);
  /* (one frame at a time: each reports before the next comes) */
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
      "kpatternmatch backend=%s frames-in-flight=1 "
      "template-location=\"%s\" ! fakesink", backend, tmpl);
  GstElement *p = gst_parse_launch (desc, NULL);
  g_free (desc);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *b = gst_buffer_copy (gst_sample_get_buffer (cases[i].frame));
    GST_BUFFER_PTS (b) = i * GST_SECOND;
    GstSample *s = gst_sample_new (b, gst_sample_get_caps (cases[i].frame),
        NULL, NULL);
    gst_app_src_push_sample (GST_APP_SRC (src), s);
    gst_sample_unref (s);
    gst_buffer_unref (b);
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    const GstStructure *st = m ? gst_message_get_structure (m) : NULL;
    gboolean found = FALSE;
    gint x = -1, y = -1;
    gdouble score = 1;
    if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT)
      gst_structure_get (st, "found", G_TYPE_BOOLEAN, &found, "x", G_TYPE_INT,
          &x, "y", G_TYPE_INT, &y, "score", G_TYPE_DOUBLE, &score, NULL);
    const gboolean ok = found && x == x0 && y == y0 && score <= 0.01;
    printf ("%-9s %-26s %s: x %d y %d (cut at %d, %d) score %.4f\n", name,
        cases[i].what, ok ? "ok" : "FAILED", x, y, x0, y0, score);
    if (!ok && m && GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT) {
      GError *err = NULL;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &err, NULL);
      else
        gst_message_parse_warning (m, &err, NULL);
      printf ("  %s\n", err->message);
      g_error_free (err);
    }
    failures += !ok;
    if (m)
      gst_message_unref (m);
    gst_sample_unref (cases[i].frame);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (p);
  g_unlink (tmpl);
  g_free (tmpl);
  gst_sample_unref (rgba);
  gst_sample_unref (full);
  gst_sample_unref (jpeg);
  gst_sample_unref (yuv);
  gst_sample_unref (photo);
  gst_caps_unref (rgb_caps);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  const gchar *dir = g_getenv ("KCONV_PHOTOS");
  const gchar *backend = g_getenv ("KCONV_TEST_BACKEND");
  if (!dir || !*dir) {
    printf ("KCONV_PHOTOS is not set (tests/photos.sh writes them): "
        "skipped\n");
    return 77;
  }
  const gchar *names[] = { "astronaut", "coffee", "chelsea" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    check_photo (dir, names[i], backend && *backend ? backend : "cpu");
  printf ("%d failed\n", failures);
  return failures ? 1 : 0;
}
