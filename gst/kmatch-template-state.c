/* GStreamer kconv plugin: the template kpatternmatch searches for
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kmatch-template-state.h"
#include "kmatch-template.h"
#include "kconv-frame-images.h"

/* The template to the matcher: bytes, or 16-bit values */
static gboolean
set_in_matcher (const GstKMatchTemplateState * t, KMatch * matcher)
{
  if (t->depth > 8)
    return kmatch_set_template_deep (matcher, (const guint16 *) t->samples,
        t->width, t->height, t->width, t->depth) == KCONV_OK;
  return kmatch_set_template (matcher, t->samples, t->width, t->height,
      (ptrdiff_t) t->width * t->channels, t->channels) == KCONV_OK;
}

void
gst_kmatch_template_state_give (GstKMatchTemplateState * t, KMatch * matcher)
{
  t->in_matcher = t->samples && set_in_matcher (t, matcher);
  t->mask_in_matcher = FALSE;
  t->generation++;
}

gboolean
gst_kmatch_template_state_stale (const GstKMatchTemplateState * t,
    const GstVideoInfo * frames, gint channels)
{
  /* a file's luma is made by the frames' matrix and range */
  const GstVideoColorimetry *c = &frames->colorimetry;
  return t->format != GST_VIDEO_INFO_FORMAT (frames) || t->channels != channels
      || (!t->from_region && (t->matrix != c->matrix || t->range != c->range));
}

/* Keeps samples (taking them) and mask as the template, in the matcher. */
static void
keep (GstKMatchTemplateState * t, KMatch * matcher, guint8 * samples,
    guint8 * mask, gint width, gint height, gint channels, gint depth,
    GstVideoFormat format, gboolean from_region)
{
  g_free (t->samples);
  g_free (t->mask);
  t->samples = samples;
  t->mask = mask;
  t->width = width;
  t->height = height;
  t->channels = channels;
  t->depth = depth;
  t->format = format;
  t->from_region = from_region;
  t->in_matcher = set_in_matcher (t, matcher);
  t->mask_in_matcher = FALSE;
  t->generation++;
}

gboolean
gst_kmatch_template_state_cut (GstKMatchTemplateState * t, KMatch * matcher,
    const KConvImage * im, const KMatchRegion * r, gint channels,
    GstVideoFormat format)
{
  const gint depth = im->depth > 8 ? im->depth : 8;
  guint8 *samples = depth > 8 ? (guint8 *) kmatch_cut_template_deep (im, r) :
      kmatch_cut_template (im, r, channels);
  if (!samples)
    return FALSE;
  keep (t, matcher, samples, NULL, r->width, r->height, channels, depth,
      format, TRUE);
  return TRUE;
}

/* The luma of a sample given in the frames' own space (their format's
 * kind and depth, and for YUV their matrix and range), as it is: values
 * (16-bit beyond 8 bits) of its size; NULL when it is not in that space. */
static guint8 *
luma_as_given (GstSample * given, const GstVideoInfo * frames)
{
  GstVideoInfo info;
  GstVideoFrame f;
  if (!given || !gst_video_info_from_caps (&info, gst_sample_get_caps (given)))
    return NULL;
  const GstVideoFormatInfo *gi = info.finfo, *fi = frames->finfo;
  const gboolean same_kind = (GST_VIDEO_FORMAT_INFO_IS_YUV (gi)
      && GST_VIDEO_FORMAT_INFO_IS_YUV (fi)
      && info.colorimetry.matrix == frames->colorimetry.matrix
      && info.colorimetry.range == frames->colorimetry.range)
      || (GST_VIDEO_FORMAT_INFO_IS_GRAY (gi)
      && GST_VIDEO_FORMAT_INFO_IS_GRAY (fi));
  if (!same_kind || GST_VIDEO_FORMAT_INFO_DEPTH (gi, 0) !=
      GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0)
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (given),
          GST_MAP_READ))
    return NULL;
  const KConvImage im = gst_kconv_frame_comp_image (&f, GST_VIDEO_COMP_Y);
  const KMatchRegion all = { 0, 0, im.width, im.height };
  guint8 *values = im.depth > 8 ? (guint8 *) kmatch_cut_template_deep (&im,
      &all) : kmatch_cut_template (&im, &all, 1);
  gst_video_frame_unmap (&f);
  /* (g_free takes what malloc gave: GLib uses the system's allocator) */
  return values;
}

gboolean
gst_kmatch_template_state_pack (GstKMatchTemplateState * t, KMatch * matcher,
    GstSample * rgba, const GstVideoInfo * frames, gint channels)
{
  gint w, h;
  guint8 *mask;
  guint8 *samples = gst_kmatch_template_pack (rgba, frames, channels, &w, &h,
      &mask);
  if (!samples)
    return FALSE;
  guint8 *as_given = channels == 1 ?
      luma_as_given (gst_kmatch_template_given (rgba), frames) : NULL;
  if (as_given) {
    g_free (samples);
    samples = as_given;
  }
  const gint depth = GST_VIDEO_INFO_COMP_DEPTH (frames, 0);
  keep (t, matcher, samples, mask, w, h, channels,
      channels == 1 ? MAX (depth, 8) : 8, GST_VIDEO_INFO_FORMAT (frames),
      FALSE);
  t->matrix = frames->colorimetry.matrix;
  t->range = frames->colorimetry.range;
  return TRUE;
}

void
gst_kmatch_template_state_use_mask (GstKMatchTemplateState * t,
    KMatch * matcher, gboolean use_alpha)
{
  /* on for a template with some transparency, unless use-alpha=false */
  gboolean want = use_alpha && t->mask;
  if (t->in_matcher && want != t->mask_in_matcher) {
    kmatch_set_template_mask (matcher, want ? t->mask : NULL, t->width);
    t->mask_in_matcher = want;
    t->generation++;
  }
}

void
gst_kmatch_template_state_clear (GstKMatchTemplateState * t)
{
  g_clear_pointer (&t->samples, g_free);
  g_clear_pointer (&t->mask, g_free);
  t->in_matcher = t->mask_in_matcher = FALSE;
  t->generation++;
}
