/* GStreamer kconv plugin: each template's search of a frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The templates of a frame (and with scales each template's sizes)
 * searched in one pass over it (kmatch_search_many), a template's sizes
 * merged (kmatch_merge_sizes), its matches refined to a fraction of a
 * pixel by the matcher of the size each was found at and held to the
 * threshold.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstkpatternmatch-private.h"

void
gst_kmatch_target_search_room (GstKMatchTargetSearch * x,
    GstKMatchBox * boxes, gint * sizes, guint i, gint max)
{
  x->boxes = boxes + i * (gsize) max;
  x->size_of = sizes + i * (gsize) max;
  const GstKMatchBox own = { x->t->template.width, x->t->template.height,
    1.0
  };
  for (gint k = 0; k < max; k++) {
    x->boxes[k] = own;
    x->size_of[k] = -1;
  }
  x->best_box = own;
}

KConvStatus
gst_kmatch_targets_search (GstKMatchTargetSearch * ts, guint count,
    const KConvImage * im, gboolean rgb_luma, gint max, gboolean on_device)
{
  const gsize room = (gsize) count * KMATCH_MAX_SCALES;
  KMatch **ms = g_new (KMatch *, room);
  KMatchRegion *regions = g_new (KMatchRegion, room);
  gint *found = g_new (gint, room), *widths = g_new (gint, room);
  gint *heights = g_new (gint, room), *size = g_new (gint, room);
  guint *which = g_new (guint, room), k = 0;

  for (guint i = 0; i < count; i++) {
    GstKMatchTarget *t = ts[i].t;
    for (gint j = 0; ts[i].pending && t->sizes && j < t->sizes->n; j++) {
      const GstKMatchSize *z = &t->sizes->size[j];
      if (!z->fits)
        continue;
      ms[k] = z->matcher ? z->matcher : t->matcher;
      regions[k] = z->region;
      widths[k] = z->width;
      heights[k] = z->height;
      size[k] = j;
      which[k++] = i;
    }
    if (ts[i].pending && !t->sizes) {
      ms[k] = t->matcher;
      regions[k] = ts[i].region;
      widths[k] = t->template.width;
      heights[k] = t->template.height;
      size[k] = -1;
      which[k++] = i;
    }
  }
  KMatchPosition *all = g_new (KMatchPosition, (gsize) MAX (k, 1) * max);
  KConvStatus st = k == 0 ? KCONV_OK : kmatch_search_many (ms, (gint) k,
      im, rgb_luma, on_device, regions, max, all, found);
  /* each template's run of entries, merged */
  for (guint j = 0; j < k && st == KCONV_OK;) {
    GstKMatchTargetSearch *x = &ts[which[j]];
    guint end = j;
    while (end < k && which[end] == which[j])
      end++;
    gint picked[MAX_MATCHES] = { 0 };
    if (size[j] < 0) {          /* the template's own size alone */
      x->n = found[j];
      memcpy (x->matches, all + (gsize) j * max, sizeof *all * found[j]);
    } else {
      x->n = kmatch_merge_sizes (all + (gsize) j * max, found + j, max,
          widths + j, heights + j, (gint) (end - j), max, x->matches, picked);
    }
    for (gint m = 0; m < x->n; m++) {
      const guint e = j + picked[m];
      x->size_of[m] = size[e];
      x->boxes[m].width = widths[e];
      x->boxes[m].height = heights[e];
      x->boxes[m].scale = size[e] < 0 ? 1.0 : x->t->sizes->size[size[e]].scale;
    }
    x->pending = FALSE;
    j = end;
  }
  g_free (all);
  g_free (ms);
  g_free (regions);
  g_free (found);
  g_free (widths);
  g_free (heights);
  g_free (size);
  g_free (which);
  return st;
}

KConvStatus
gst_kmatch_target_settle (GstKMatchTargetSearch * ts, const KConvImage * im,
    gboolean rgb_luma, gdouble threshold, gboolean on_device)
{
  KConvStatus (*refine) (KMatch *, const KConvImage *, int,
      const KMatchRegion *, KMatchPosition *, int) = on_device ?
      kmatch_refine_device : kmatch_refine;
  KConvStatus st = KCONV_OK;
  if (!ts->t->sizes && ts->n > 0)
    st = refine (ts->t->matcher, im, rgb_luma, &ts->region, ts->matches, ts->n);
  for (gint i = 0; ts->t->sizes && i < ts->n && st == KCONV_OK; i++) {
    const GstKMatchSize *z = &ts->t->sizes->size[ts->size_of[i]];
    st = refine (z->matcher ? z->matcher : ts->t->matcher, im, rgb_luma,
        &z->region, &ts->matches[i], 1);
  }
  if (st != KCONV_OK)
    return st;
  ts->searched = ts->n > 0;
  if (ts->searched) {
    ts->best = ts->matches[0];
    ts->best_box = ts->boxes[0];
  }
  gint kept = 0;
  for (gint i = 0; i < ts->n; i++)
    if (ts->matches[i].score <= threshold) {
      ts->boxes[kept] = ts->boxes[i];
      ts->size_of[kept] = ts->size_of[i];
      ts->matches[kept++] = ts->matches[i];
    }
  ts->n = kept;
  ts->t->have_last = kept > 0;
  if (kept > 0) {
    ts->t->last = ts->matches[0];
    ts->t->last_width = ts->boxes[0].width;
    ts->t->last_height = ts->boxes[0].height;
  }
  return KCONV_OK;
}
