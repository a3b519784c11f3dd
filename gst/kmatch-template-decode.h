/* GStreamer kconv plugin: decoding a template image file
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS
/* How long a decode may take before it is given up. */
#define KMATCH_TEMPLATE_DECODE_TIMEOUT (10 * GST_SECOND)
/* Decodes an image file (any format GStreamer can decode) into an RGBA
 * sample, in this process; NULL and error set when it cannot: no image,
 * larger than max_width x max_height (refused from the decoder's caps,
 * before a frame of that size exists), or no answer within
 * KMATCH_TEMPLATE_DECODE_TIMEOUT.  A decoder that never returns keeps its
 * thread and its pipeline: this is meant to run in a process of its own
 * (kconv-template-decoder), which gst_kmatch_template_load_file() kills.
 * on_size (NULL: none) is called with the size the decoder reports, as
 * it reports it, before it makes a frame of that size. */
typedef void (*GstKMatchSizeFunc) (gint width, gint height);
GstSample *gst_kmatch_template_decode (const gchar * path, gint max_width,
    gint max_height, GstKMatchSizeFunc on_size, GError ** error);

G_END_DECLS
