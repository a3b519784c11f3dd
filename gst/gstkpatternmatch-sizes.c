/* GStreamer kconv plugin: kpatternmatch's templates at other sizes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With scales, each template is tried at every size listed: a copy
 * resized once (kmatch_scale_template: area average when shrinking,
 * bilinear when growing, the same bytes for every backend) in a matcher
 * of its own, searched beside the others in the frame's one pass.  Sizes
 * larger than the frames are never made; the copies of all templates
 * together stay within template-budget.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstkpatternmatch-private.h"

void
gst_kpattern_match_free_sizes (GstKMatchTarget * t)
{
  if (!t->sizes)
    return;
  for (gint i = 0; i < t->sizes->n; i++)
    kmatch_free (t->sizes->size[i].matcher);
  g_clear_pointer (&t->sizes, g_free);
}

/* The pixels the other targets' resized copies take */
static guint64
others_pixels (GstKPatternMatch * self, const GstKMatchTarget * t)
{
  guint64 used = 0;
  if (&self->first != t && self->first.sizes)
    used += self->first.sizes->pixels;
  for (guint i = 0; i < G_N_ELEMENTS (self->extras); i++)
    if (&self->extras[i] != t && self->extras[i].sizes)
      used += self->extras[i].sizes->pixels;
  return used;
}

/* Whether the sizes were made from what the target and settings hold now */
static gboolean
sizes_current (const GstKMatchTarget * t, const Settings * snap, gint fw,
    gint fh, guint64 budget)
{
  const GstKMatchSizes *z = t->sizes;
  return z && z->generation == t->template.generation
      && z->matcher_built == t->matcher_built && z->method == snap->method
      && z->frame_width == fw && z->frame_height == fh && z->budget == budget
      && z->n_scales == snap->n_scales
      && memcmp (z->scales, snap->scales, sizeof z->scales[0] * z->n_scales)
      == 0;
}

/* A matcher holding the target's template resized to size z (its mask
 * too, where the target's matcher has one) */
static KConvStatus
make_size (const GstKMatchTarget * t, const KConvOptions * opt,
    KMatchMethod method, GstKMatchSize * z)
{
  const GstKMatchTemplateState *tpl = &t->template;
  gint w = 0, h = 0;
  KConvStatus st = kmatch_new (opt, &z->matcher);
  if (st != KCONV_OK)
    return st;
  kmatch_set_method (z->matcher, method);
  if (tpl->depth > 8) {
    guint16 *v = kmatch_scale_template_deep ((const guint16 *) tpl->samples,
        tpl->width, tpl->height, z->scale, &w, &h);
    st = v ? kmatch_set_template_deep (z->matcher, v, w, h, w, tpl->depth) :
        KCONV_ERROR_OUT_OF_MEMORY;
    free (v);
  } else {
    guint8 *v = kmatch_scale_template (tpl->samples, tpl->width, tpl->height,
        tpl->channels, z->scale, &w, &h);
    st = v ? kmatch_set_template (z->matcher, v, w, h,
        (ptrdiff_t) w * tpl->channels, tpl->channels) :
        KCONV_ERROR_OUT_OF_MEMORY;
    free (v);
  }
  if (st != KCONV_OK || !tpl->mask_in_matcher)
    return st;
  /* the mask resized as samples 0 or 255, kept where at least half counts */
  const gsize n = (gsize) tpl->width * tpl->height;
  guint8 *full = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    full[i] = tpl->mask[i] ? 255 : 0;
  guint8 *mask = kmatch_scale_template (full, tpl->width, tpl->height, 1,
      z->scale, &w, &h);
  g_free (full);
  if (!mask)
    return KCONV_ERROR_OUT_OF_MEMORY;
  for (gsize i = 0; i < (gsize) w * h; i++)
    mask[i] = mask[i] >= 128;
  st = kmatch_set_template_mask (z->matcher, mask, w);
  free (mask);
  return st;
}

gboolean
gst_kpattern_match_ensure_sizes (GstKPatternMatch * self, GstKMatchTarget * t,
    const Settings * snap, gint fw, gint fh)
{
  const guint64 budget = gst_kmatch_template_budget (snap->template_budget,
      fw, fh);
  if (sizes_current (t, snap, fw, fh, budget))
    return TRUE;
  gst_kpattern_match_free_sizes (t);
  GstKMatchSizes *z = t->sizes = g_new0 (GstKMatchSizes, 1);
  z->generation = t->template.generation;
  z->matcher_built = t->matcher_built;
  z->method = snap->method;
  z->frame_width = fw;
  z->frame_height = fh;
  z->budget = budget;
  z->n_scales = z->n = snap->n_scales;
  memcpy (z->scales, snap->scales, sizeof z->scales);

  KConvOptions opt;
  gst_kconv_base_options (GST_KCONV_BASE (self), &opt);
  const guint64 left = budget - MIN (budget, others_pixels (self, t));
  gint over_budget = 0;
  for (gint i = 0; i < z->n; i++) {
    GstKMatchSize *s = &z->size[i];
    s->scale = z->scales[i];
    kmatch_scaled_size (t->template.width, t->template.height, s->scale,
        &s->width, &s->height);
    if (s->scale == 1.0) {
      s->made = TRUE;           /* the target's own matcher */
      continue;
    }
    const guint64 pixels = (guint64) s->width * s->height;
    if (s->width > fw || s->height > fh)
      continue;                 /* could never be found */
    if (z->pixels + pixels > left) {
      over_budget++;
      continue;
    }
    KConvStatus st = make_size (t, &opt, snap->method, s);
    if (st != KCONV_OK) {
      GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
          ("Could not make the template at scale %g", s->scale), st);
      gst_kpattern_match_free_sizes (t);
      return FALSE;
    }
    s->made = TRUE;
    z->pixels += pixels;
  }
  if (over_budget)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("%d of the template's %d sizes are left out: their pixels would "
            "take the templates past template-budget (%" G_GUINT64_FORMAT
            " pixels)", over_budget, z->n, budget), (NULL));
  return TRUE;
}

gboolean
gst_kpattern_match_sizes_area (GstKMatchTarget * t, const Settings * snap,
    gint fw, gint fh)
{
  const KMatchRegion *search = snap->has_search_region ?
      &snap->search_region : NULL;
  gboolean any = FALSE;
  for (gint i = 0; i < t->sizes->n; i++) {
    GstKMatchSize *s = &t->sizes->size[i];
    /* round the last match, centres aligned */
    KMatchPosition last = t->last;
    last.x += (t->last_width - s->width) / 2;
    last.y += (t->last_height - s->height) / 2;
    s->region = kmatch_search_area (search, t->have_last ? &last : NULL,
        snap->search_radius, s->width, s->height, fw, fh);
    s->fits = s->made && s->width <= s->region.width
        && s->height <= s->region.height;
    any |= s->fits;
  }
  return any;
}
