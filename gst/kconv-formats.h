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

/* Both also take 10-, 12- and 16-bit samples (HEVC Main10 and AV1
 * decoders' P010, HDR and broadcast 4:2:2, 16-bit grey cameras): kconvfilter
 * every one below, kpatternmatch those with a luma plane (it matches deep
 * samples on luma) */
#define KCONV_DEEP_LUMA_FORMATS "P010_10LE, P012_LE, P016_LE, " \
    "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, " \
    "Y444_16LE, GRAY16_LE, GRAY16_BE"
#define KCONV_DEEP_VIDEO_FORMATS "{ " KCONV_DEEP_LUMA_FORMATS ", " \
    "RGBA64_LE, BGRA64_LE }"
#define KCONV_MATCH_DEEP_FORMATS "{ " KCONV_DEEP_LUMA_FORMATS " }"

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

/* The elements' pads: those, and the deeper formats after them (in CUDA
 * memory where GStreamer's CUDA memory holds them) */
#ifdef KCONV_HAVE_GST_CUDA
#define KCONV_WITH_DEEP_CAPS(deep) KCONV_VIDEO_CAPS "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", deep) \
    KCONV_PROGRESSIVE "; " GST_VIDEO_CAPS_MAKE (deep) KCONV_PROGRESSIVE
#else
#define KCONV_WITH_DEEP_CAPS(deep) KCONV_VIDEO_CAPS "; " \
    GST_VIDEO_CAPS_MAKE (deep) KCONV_PROGRESSIVE
#endif
#define KCONV_FILTER_VIDEO_CAPS KCONV_WITH_DEEP_CAPS (KCONV_DEEP_VIDEO_FORMATS)
#define KCONV_MATCH_VIDEO_CAPS KCONV_WITH_DEEP_CAPS (KCONV_MATCH_DEEP_FORMATS)

#endif /* KCONV_FORMATS_H */
