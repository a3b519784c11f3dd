/* GStreamer kconv plugin: templates for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
/* The largest template taken, a side: larger than any frame a matcher
 * can search in reasonable time, and a bound on what a file's header can
 * make kconv allocate. */
#define KMATCH_TEMPLATE_MAX_SIDE 8192
/* Points the loader at the folder holding kconv-template-decoder (the
 * plugin's own folder); without it, or where it is not there, the
 * installed one in KCONV_LIBEXECDIR is run. */
void gst_kmatch_template_set_decoder_dir (const gchar * dir);

/* Decodes an image file (any format GStreamer can decode) into an RGBA
 * sample (alpha 255 where the file has none), in a process of its own
 * that is killed when it takes longer than the decode's time limit; NULL
 * and error set when it cannot: not a regular file, no image, larger than
 * max_width x max_height (at most KMATCH_TEMPLATE_MAX_SIDE a side; refused
 * from its caps, before a frame of that size is allocated), a decoder
 * that crashed or stalled, or no pixel with alpha of 128 or more. */
GstSample *gst_kmatch_template_load_file (const gchar * path, gint max_width,
    gint max_height, GError ** error);

/* Converts any raw video sample to RGBA; NULL and error set on failure,
 * and for a sample larger than max_width x max_height (at most
 * KMATCH_TEMPLATE_MAX_SIDE a side) or with no pixel of alpha 128 or
 * more. */
GstSample *gst_kmatch_template_to_rgba (GstSample * sample, gint max_width,
    gint max_height, GError ** error);

/* How luma is made from RGB for a frame format: full range for grey and
 * RGB frames (a grey pixel keeps its value), BT.601 video range for YUV
 * frames (as their Y planes are). */
guint8 gst_kmatch_luma (const GstVideoFormatInfo * frame_format, guint8 r,
    guint8 g, guint8 b);

/* An RGBA sample as packed samples for matching: 1 channel (luma by
 * gst_kmatch_luma) or 3 (RGB).  *mask: where some pixel is transparent (alpha
 * under 128), width x height bytes, 1 for the pixels that count (alpha
 * 128 and up), else NULL.  g_free both. */
guint8 *gst_kmatch_template_pack (GstSample * rgba, const GstVideoFormatInfo *
    frame_format, gint channels, gint * width, gint * height, guint8 ** mask);

G_END_DECLS
