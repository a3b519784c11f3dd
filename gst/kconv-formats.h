/* GStreamer kconv plugin: the raw video formats both elements take
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every common layout of 8-bit samples: grey; packed RGB with and without
 * alpha or padding; planar RGB; planar and semi-planar YUV at 4:2:0,
 * 4:1:1, 4:2:2 and 4:4:4; packed 4:2:2 as webcams send it (YUY2, UYVY...);
 * packed 4:4:4 with alpha.  Camera and decoder formats come first, so that
 * negotiation keeps what upstream produces.
 */
#ifndef KCONV_FORMATS_H
#define KCONV_FORMATS_H

#define KCONV_VIDEO_FORMATS "{ I420, YV12, NV12, NV21, YUY2, UYVY, YVYU, " \
    "VYUY, NV16, NV61, NV24, Y41B, Y42B, Y444, AYUV, VUYA, GRAY8, RGB, BGR, " \
    "RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, GBR, GBRA }"

/* Pad template caps: system memory, and where the build has GStreamer's
 * CUDA library, the same formats in CUDA memory, which comes first so that
 * frames already on the GPU stay there. */
#ifdef KCONV_HAVE_GST_CUDA
#define KCONV_VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
        KCONV_VIDEO_FORMATS) "; " GST_VIDEO_CAPS_MAKE (KCONV_VIDEO_FORMATS)
#else
#define KCONV_VIDEO_CAPS GST_VIDEO_CAPS_MAKE (KCONV_VIDEO_FORMATS)
#endif

#include <gst/video/video.h>

/* Whether buf holds a whole frame of info (with a GstVideoMeta, mapping
 * checks its planes); if not, a sentence naming both sizes in *why (to be
 * g_free'd). */
static inline gboolean
kconv_buffer_fits (GstBuffer * buf, const GstVideoInfo * info, gchar ** why)
{
  gsize have = gst_buffer_get_size (buf);
  if (gst_buffer_get_video_meta (buf) || have >= GST_VIDEO_INFO_SIZE (info))
    return TRUE;
  *why = g_strdup_printf ("the buffer holds %" G_GSIZE_FORMAT " bytes, but a "
      "%dx%d %s frame needs %" G_GSIZE_FORMAT, have,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info));
  return FALSE;
}

#endif /* KCONV_FORMATS_H */
