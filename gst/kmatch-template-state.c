/* GStreamer kconv plugin: the template kpatternmatch searches for
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kmatch-template-state.h"
#include "kmatch-template.h"

void
gst_kmatch_template_state_give (GstKMatchTemplateState * t, KMatch * matcher)
{
  t->in_matcher = t->samples && kmatch_set_template (matcher, t->samples,
      t->width, t->height, (ptrdiff_t) t->width * t->channels,
      t->channels) == KCONV_OK;
  t->mask_in_matcher = FALSE;
}

gboolean
gst_kmatch_template_state_stale (const GstKMatchTemplateState * t,
    GstVideoFormat format, gint channels)
{
  return t->format != format || t->channels != channels;
}

/* Keeps samples (taking them) and mask as the template, in the matcher. */
static void
keep (GstKMatchTemplateState * t, KMatch * matcher, guint8 * samples,
    guint8 * mask, gint width, gint height, gint channels,
    GstVideoFormat format, gboolean from_region)
{
  kmatch_set_template (matcher, samples, width, height,
      (ptrdiff_t) width * channels, channels);
  g_free (t->samples);
  g_free (t->mask);
  t->samples = samples;
  t->mask = mask;
  t->width = width;
  t->height = height;
  t->channels = channels;
  t->format = format;
  t->from_region = from_region;
  t->in_matcher = TRUE;
  t->mask_in_matcher = FALSE;
}

gboolean
gst_kmatch_template_state_cut (GstKMatchTemplateState * t, KMatch * matcher,
    const KConvImage * im, const KMatchRegion * r, gint channels,
    GstVideoFormat format)
{
  guint8 *samples = kmatch_cut_template (im, r, channels);
  if (!samples)
    return FALSE;
  keep (t, matcher, samples, NULL, r->width, r->height, channels, format, TRUE);
  return TRUE;
}

gboolean
gst_kmatch_template_state_pack (GstKMatchTemplateState * t, KMatch * matcher,
    GstSample * rgba, const GstVideoFormatInfo * finfo, gint channels)
{
  gint w, h;
  guint8 *mask;
  guint8 *samples = gst_kmatch_template_pack (rgba, finfo, channels, &w, &h,
      &mask);
  if (!samples)
    return FALSE;
  keep (t, matcher, samples, mask, w, h, channels,
      GST_VIDEO_FORMAT_INFO_FORMAT (finfo), FALSE);
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
  }
}

void
gst_kmatch_template_state_clear (GstKMatchTemplateState * t)
{
  g_clear_pointer (&t->samples, g_free);
  g_clear_pointer (&t->mask, g_free);
  t->in_matcher = t->mask_in_matcher = FALSE;
}
