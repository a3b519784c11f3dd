/* GStreamer kconv plugin: a template's pixels as the frames' samples
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A template file is RGB.  The frames it is compared with hold luma made
 * by their own colorimetry (caps: matrix, range, depth), so the template's
 * luma is made the same way, as videoconvert would make it for those caps:
 * a full-range JPEG frame and a video-range one differ by about 12 levels
 * in the shadows.  RGB and grey frames are compared on kmatch_rgb_luma, as
 * the core makes the luma of RGB frames.
 */
#include <math.h>
#include "kmatch-template.h"
#include "kmatch.h"

void
gst_kmatch_luma_init (GstKMatchLuma * l, const GstVideoInfo * frames)
{
  const GstVideoFormatInfo *finfo = frames->finfo;
  l->yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  l->depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  if (!l->yuv)
    return;
  /* the matrix (BT.601 where the caps name none, or RGB) and range */
  gdouble kr, kb;
  if (!gst_video_color_matrix_get_Kr_Kb (frames->colorimetry.matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  l->kr = kr;
  l->kb = kb;
  l->kg = 1.0 - kr - kb;
  GstVideoColorRange range = frames->colorimetry.range;
  if (range == GST_VIDEO_COLOR_RANGE_UNKNOWN)
    range = GST_VIDEO_COLOR_RANGE_16_235;
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets (range, finfo, offset, scale);
  l->offset = offset[0];
  l->scale = scale[0];
}

guint16
gst_kmatch_luma_value (const GstKMatchLuma * l, guint8 r, guint8 g, guint8 b)
{
  const guint max = (1u << l->depth) - 1;
  if (!l->yuv) {
    /* grey and RGB frames: full range, 255 the largest value */
    const guint v = kmatch_rgb_luma (r, g, b);
    return (guint16) (l->depth > 8 ? (v * max + 127) / 255 : v);
  }
  const gdouble y = l->offset + l->scale * (l->kr * r + l->kg * g +
      l->kb * b) / 255.0;
  return (guint16) CLAMP (lround (y), 0, (glong) max);
}

guint8 *
gst_kmatch_template_pack (GstSample * rgba, const GstVideoInfo * frames,
    gint channels, gint * width, gint * height, guint8 ** mask)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  *mask = NULL;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (rgba),
          GST_MAP_READ))
    return NULL;
  GstKMatchLuma luma;
  gst_kmatch_luma_init (&luma, frames);
  const gboolean deep = channels == 1 && luma.depth > 8;
  const gint w = GST_VIDEO_INFO_WIDTH (&info), h =
      GST_VIDEO_INFO_HEIGHT (&info);
  guint8 *out = g_malloc ((gsize) w * h * channels * (deep ? 2 : 1));
  guint16 *out16 = (guint16 *) out;
  guint8 *m = g_malloc ((gsize) w * h);
  gboolean transparent = FALSE;
  for (gint y = 0; y < h; y++) {
    const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const gsize row = (gsize) y * w;
    for (gint x = 0; x < w; x++, s += 4) {
      if (channels == 3) {
        for (gint c = 0; c < 3; c++)
          out[3 * (row + x) + c] = s[c];
      } else if (deep) {
        out16[row + x] = gst_kmatch_luma_value (&luma, s[0], s[1], s[2]);
      } else {
        out[row + x] = (guint8) gst_kmatch_luma_value (&luma, s[0], s[1], s[2]);
      }
      m[row + x] = s[3] >= 128;
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
