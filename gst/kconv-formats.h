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

/* Progressive frames only: a kernel over interleaved fields would mix
 * rows of two instants (and the search would match across them), so
 * interlaced video is refused at negotiation; put `deinterlace` first. */
#define KCONV_PROGRESSIVE ", interlace-mode = (string) progressive"

/* Pad template caps: system memory, and where the build has GStreamer's
 * CUDA library, the same formats in CUDA memory, which comes first so that
 * frames already on the GPU stay there. */
#ifdef KCONV_HAVE_GST_CUDA
#define KCONV_VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
        KCONV_VIDEO_FORMATS) KCONV_PROGRESSIVE "; " \
    GST_VIDEO_CAPS_MAKE (KCONV_VIDEO_FORMATS) KCONV_PROGRESSIVE
#else
#define KCONV_VIDEO_CAPS \
    GST_VIDEO_CAPS_MAKE (KCONV_VIDEO_FORMATS) KCONV_PROGRESSIVE
#endif

#endif /* KCONV_FORMATS_H */
