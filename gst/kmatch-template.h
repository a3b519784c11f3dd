/* GStreamer kconv plugin: templates for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Decodes an image file (any format GStreamer can decode) into an RGB
 * sample; NULL and error set when it cannot. */
GstSample *kmatch_template_load_file (const gchar * path, GError ** error);

/* Converts any raw video sample to RGB; NULL and error set on failure. */
GstSample *kmatch_template_to_rgb (GstSample * sample, GError ** error);

/* How luma is made from RGB for a frame format: full range for grey and
 * RGB frames (a grey pixel keeps its value), BT.601 video range for YUV
 * frames (as their Y planes are). */
guint8 kmatch_luma (const GstVideoFormatInfo * frame_format, guint8 r,
    guint8 g, guint8 b);

/* An RGB sample as packed samples for matching: 1 channel (luma by
 * kmatch_luma) or 3 (RGB).  g_free the result. */
guint8 *kmatch_template_pack (GstSample * rgb, const GstVideoFormatInfo *
    frame_format, gint channels, gint * width, gint * height);

G_END_DECLS
