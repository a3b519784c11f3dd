/* GStreamer kconv plugin: mapped video frames as the core's images
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * How the planes and components of a GstVideoFrame (system or CUDA
 * memory) are described to the core, so that the elements hold no pixel
 * loops of their own.
 */
#ifndef KCONV_FRAME_IMAGES_H
#define KCONV_FRAME_IMAGES_H

#include <gst/video/video.h>
#include "kconv.h"

G_BEGIN_DECLS
/* Which components of YUV video become images (RGB: every colour). */
    typedef enum
{
  /* luma and chroma, together where they share a sampling */
  GST_KCONV_FRAME_ALL,
  GST_KCONV_FRAME_LUMA,         /* luma alone: chroma is left out */
  GST_KCONV_FRAME_SPLIT,        /* luma and chroma in images of their own */
} GstKConvFrameComponents;

/* The images plane `plane` holds: one for each sampling of its
 * components (packed 4:2:2 has luma at every pixel and chroma at every
 * other), alpha left out; `which` says what becomes of chroma.  The one
 * covering the most bytes comes first and copies what it does not filter;
 * the others keep what it wrote.  chroma[i] (when not NULL) says whether
 * image i holds chroma alone.  Returns how many (0: nothing to convolve). */
guint gst_kconv_frame_plane_images (GstVideoFrame * frame, guint plane,
    GstKConvFrameComponents which, KConvImage im[GST_VIDEO_MAX_COMPONENTS],
    gboolean chroma[GST_VIDEO_MAX_COMPONENTS]);

/* Bytes a row of `plane` spans, padding between samples included. */
gsize gst_kconv_frame_plane_row_bytes (const GstVideoFrame * frame,
    guint plane);

/* Rows of `plane`. */
gint gst_kconv_frame_plane_height (const GstVideoFrame * frame, guint plane);

/* Copies bytes from..to of each row of `plane` (system memory). */
void gst_kconv_frame_copy_row_tails (GstVideoFrame * out, GstVideoFrame * in,
    guint plane, gsize from, gsize to, gint rows);

/* Component c as a one-channel image. */
KConvImage gst_kconv_frame_comp_image (GstVideoFrame * frame, gint c);

/* A 2-pixel outline of the w x h box at x, y: green on RGB, white on
 * luma; on the GPU (on_device: queued on the default stream) or the CPU. */
KConvStatus gst_kconv_frame_draw_box (GstVideoFrame * frame, gint x, gint y,
    gint w, gint h, gboolean on_device);

G_END_DECLS
#endif /* KCONV_FRAME_IMAGES_H */
