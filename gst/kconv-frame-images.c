/* GStreamer kconv plugin: mapped video frames as the core's images
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include "kconv-frame-images.h"

/* Where component c lies in its pixel, in bytes.  GStreamer 1.22 gives the
 * second chroma of P010, P012 and P016 an offset of 1 (a sample, not a
 * byte: a word cannot start there), which is taken as the sample it
 * means. */
static gint
comp_byte_offset (const GstVideoFormatInfo * finfo, guint c)
{
  gint offset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8 && offset % 2)
    offset *= 2;
  return offset;
}

/* Describes plane `plane` of a mapped frame for the core: one image for
 * each sampling of the components it holds (packed 4:2:2 such as YUY2 has
 * luma at every pixel and chroma at every other).  The image covering the
 * most bytes comes first and copies what it does not filter; the others
 * keep what it wrote.  Returns how many (0: nothing to convolve). */
guint
gst_kconv_frame_plane_images (GstVideoFrame * frame, guint plane,
    GstKConvFrameComponents which, KConvImage im[GST_VIDEO_MAX_COMPONENTS],
    gboolean chroma[GST_VIDEO_MAX_COMPONENTS])
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  gboolean is_chroma[GST_VIDEO_MAX_COMPONENTS];
  guint n = 0;

  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gboolean cc = yuv && c != GST_VIDEO_COMP_Y;
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane
        || c == GST_VIDEO_COMP_A || (cc && which == GST_KCONV_FRAME_LUMA))
      continue;
    gint width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
    guint i = 0;
    while (i < n && !(im[i].width == width && im[i].pixel_stride == pstride
            && (which != GST_KCONV_FRAME_SPLIT || is_chroma[i] == cc)))
      i++;
    if (i == n) {
      memset (&im[n], 0, sizeof im[n]);
      im[n].data = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
      im[n].stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
      im[n].width = width;
      im[n].height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
      im[n].pixel_stride = pstride;
      if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8) {
        im[n].depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
        im[n].shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);
        im[n].big_endian = !GST_VIDEO_FORMAT_INFO_IS_LE (finfo);
      }
      is_chroma[n] = cc;
      n++;
    }
    im[i].channel_offset[im[i].n_channels++] = comp_byte_offset (finfo, c);
  }
  /* widest first (odd-width YUY2: the chroma reaches the last padding
   * byte), then keep_other_bytes for the rest */
  for (guint i = 1; i < n; i++)
    if ((gsize) im[i].width * im[i].pixel_stride >
        (gsize) im[0].width * im[0].pixel_stride) {
      KConvImage t = im[0];
      gboolean tc = is_chroma[0];
      im[0] = im[i];
      im[i] = t;
      is_chroma[0] = is_chroma[i];
      is_chroma[i] = tc;
    }
  for (guint i = 1; i < n; i++)
    im[i].keep_other_bytes = TRUE;
  if (chroma)
    for (guint i = 0; i < n; i++)
      chroma[i] = is_chroma[i];
  return n;
}

/* Bytes a row of `plane` spans, padding between samples included (odd-width
 * YUY2: the last chroma pair reaches past the last luma sample). */
gsize
gst_kconv_frame_plane_row_bytes (const GstVideoFrame * frame, guint plane)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gsize bytes = 0;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == plane)
      bytes = MAX (bytes, (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, c) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c));
  return bytes;
}

/* Copies what lies past `from` in each row of `plane`: the part of the row
 * no submitted image covers. */
void
gst_kconv_frame_copy_row_tails (GstVideoFrame * out, GstVideoFrame * in,
    guint plane, gsize from, gsize to, gint rows)
{
  for (gint y = 0; y < rows; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, plane) + from +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (out, plane),
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, plane) + from +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (in, plane), to - from);
}

/* Rows of `plane`: those of the components it holds. */
gint
gst_kconv_frame_plane_height (const GstVideoFrame * frame, guint plane)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == plane)
      return GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
  return 0;
}

/* Component c of a mapped frame as a one-channel image (its depth, shift
 * and byte order where its samples are words). */
KConvImage
gst_kconv_frame_comp_image (GstVideoFrame * frame, gint c)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const guint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
  KConvImage im = {
    .data = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, plane) +
        comp_byte_offset (finfo, c),
    .width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c),
    .height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c),
    .stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c),
    .pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c),
    .n_channels = 1,
  };
  if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8) {
    im.depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
    im.shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);
    im.big_endian = !GST_VIDEO_FORMAT_INFO_IS_LE (finfo);
  }
  return im;
}

/* A 2-pixel outline: green on RGB, white on luma; drawn by the core on
 * the GPU (on_device: queued on the default stream) or the CPU.  A sample
 * of 16-bit words is drawn as its two bytes: the largest value, in place,
 * its padding bits 0. */
KConvStatus
gst_kconv_frame_draw_box (GstVideoFrame * frame, gint x, gint y, gint w, gint h,
    gboolean on_device)
{
  static const gint rgb[3] = { GST_VIDEO_COMP_R, GST_VIDEO_COMP_G,
    GST_VIDEO_COMP_B
  };
  static const guint8 green[3] = { 0, 255, 0 };
  gboolean is_rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (frame->info.finfo);
  KConvStatus st = KCONV_OK;

  for (gint i = 0; i < (is_rgb ? 3 : 1) && st == KCONV_OK; i++) {
    gint c = is_rgb ? rgb[i] : GST_VIDEO_COMP_Y;
    guint8 value[KCONV_MAX_CHANNELS] = { is_rgb ? green[i] : 255 };
    KConvImage im = gst_kconv_frame_comp_image (frame, c);
    if (im.depth > 8) {
      const guint word = value[0] ? ((1u << im.depth) - 1) << im.shift : 0;
      value[0] = (guint8) (im.big_endian ? word >> 8 : word);
      value[1] = (guint8) (im.big_endian ? word : word >> 8);
      im.n_channels = 2;
      im.channel_offset[1] = 1;
      im.depth = im.shift = im.big_endian = 0;  /* drawn as bytes */
    }
    if (on_device)
      st = kconv_device_draw_box (&im, x, y, w, h, 2, value, NULL);
    else
      kconv_image_draw_box (&im, x, y, w, h, 2, value);
  }
  return st;
}
