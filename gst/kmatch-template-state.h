/* GStreamer kconv plugin: the template kpatternmatch searches for
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include "kmatch.h"

G_BEGIN_DECLS
/* The template as the matcher takes it, kept so that a new matcher (new
 * options, a GPU that failed) gets it again; the streaming thread's. */
    typedef struct
{
  guint8 *samples;              /* packed tw * th * channels, or NULL;
                                 * 16-bit values when depth > 8 */
  guint8 *mask;                 /* its pixels that count (alpha >= 128), or
                                 * NULL: all */
  gint width, height, channels;
  gint depth;                   /* bits a sample: 8, or 9 .. 16 */
  GstVideoFormat format;        /* of the frames it was made for */
  GstVideoColorMatrix matrix;   /* and their colorimetry (from a file) */
  GstVideoColorRange range;
  gboolean from_region;         /* cut from a frame (template-region) */
  gboolean in_matcher;          /* the matcher holds it */
  gboolean mask_in_matcher;     /* and its mask (use-alpha) */
  guint built;                  /* the template cookie it was made for */
  guint generation;             /* changes whenever what the matcher holds
                                 * does (template, mask, a new matcher) */
} GstKMatchTemplateState;

/* Gives the kept template, if any, to a new matcher. */
void gst_kmatch_template_state_give (GstKMatchTemplateState * t,
    KMatch * matcher);

/* Whether what is matched (channels, on frames of these caps: format, and
 * for a template from a file their matrix and range) differs from what
 * the template was made for. */
gboolean gst_kmatch_template_state_stale (const GstKMatchTemplateState * t,
    const GstVideoInfo * frames, gint channels);

/* Cuts the template at region r from im's samples (channels of them) and
 * gives it to the matcher; FALSE when r lies outside im. */
gboolean gst_kmatch_template_state_cut (GstKMatchTemplateState * t,
    KMatch * matcher, const KConvImage * im, const KMatchRegion * r,
    gint channels, GstVideoFormat format);

/* Packs an RGBA sample as the samples of frames of these caps
 * (gst_kmatch_template_pack: their luma by their matrix, range and depth)
 * and gives it to the matcher; FALSE when it cannot be packed.  A sample
 * an application handed over (gst_kmatch_template_given) in the frames'
 * own space (YUV of their matrix, range and depth, or grey of their
 * depth) gives its luma as it is. */
gboolean gst_kmatch_template_state_pack (GstKMatchTemplateState * t,
    KMatch * matcher, GstSample * rgba, const GstVideoInfo * frames,
    gint channels);

/* Transparency as use-alpha says: the mask given to the matcher, or
 * taken back. */
void gst_kmatch_template_state_use_mask (GstKMatchTemplateState * t,
    KMatch * matcher, gboolean use_alpha);

/* Lets the template go (none is matched until the next is made). */
void gst_kmatch_template_state_clear (GstKMatchTemplateState * t);

G_END_DECLS
