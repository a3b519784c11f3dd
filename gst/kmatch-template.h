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

/* Reads a template file's size (in the decoder's process, as
 * gst_kmatch_template_load_file) without decoding it: as its decoder
 * reports it before it makes a frame.  FALSE and error set when it cannot
 * be read, or is larger than KMATCH_TEMPLATE_MAX_SIDE a side. */
gboolean gst_kmatch_template_probe_file (const gchar * path, gint * width,
    gint * height, GError ** error);

/* Converts any raw video sample to RGBA; NULL and error set on failure,
 * and for a sample larger than max_width x max_height (at most
 * KMATCH_TEMPLATE_MAX_SIDE a side) or with no pixel of alpha 128 or
 * more. */
GstSample *gst_kmatch_template_to_rgba (GstSample * sample, gint max_width,
    gint max_height, GError ** error);

/* The sample gst_kmatch_template_to_rgba made rgba of, as it was given
 * (NULL for a file's image): a template in the frames' own space is taken
 * as it is (kmatch-template-state.c). */
GstSample *gst_kmatch_template_given (GstSample * rgba);

/* How a template's RGB becomes the frames' luma (kmatch-template-pack.c):
 * for YUV frames by their caps' matrix and range at their depth, as
 * videoconvert makes it (BT.601 video range where the caps say nothing);
 * for grey and RGB frames kmatch_rgb_luma, full range (at a depth over 8,
 * 255 becomes the largest value). */
typedef struct
{
  gboolean yuv;
  gint depth;                   /* bits of the frames' luma */
  gdouble kr, kg, kb;           /* the matrix's weights of R, G and B */
  gdouble offset, scale;        /* black, and white - black, at depth */
} GstKMatchLuma;

void gst_kmatch_luma_init (GstKMatchLuma * l, const GstVideoInfo * frames);
guint16 gst_kmatch_luma_value (const GstKMatchLuma * l, guint8 r, guint8 g,
    guint8 b);

/* An RGBA sample as packed samples for matching frames of `frames`' caps:
 * 1 channel (their luma, gst_kmatch_luma_value: bytes, or 16-bit values
 * for frames deeper than 8 bits) or 3 (R, G, B bytes).  *mask: where some
 * pixel is transparent (alpha under 128), width x height bytes, 1 for the
 * pixels that count (alpha 128 and up), else NULL.  g_free both. */
guint8 *gst_kmatch_template_pack (GstSample * rgba, const GstVideoInfo *
    frames, gint channels, gint * width, gint * height, guint8 ** mask);

G_END_DECLS
