/* kconv: template matching objects, search regions and the N best
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"
#include "kconv-error.h"
#include "kmatch-cpu.h"
#include "kconv-team.h"
#include "kconv-backend.h"
#include "kconv-slot.h"
#include "kmatch-methods.h"
#include "kmatch-private.h"


typedef struct
{
  KMatch *m;
  const KConvOptions *options;
} MatchStart;

/* A matcher's part on a backend (kconv_backend_start): the device's
 * matcher; nothing on the host backends, whose search is below */
static KConvStatus
match_start (const KConvBackendOps * ops, void *obj)
{
  MatchStart *start = obj;
  start->m->impl = NULL;
  return ops->match_new ? ops->match_new (start->options, &start->m->impl) :
      KCONV_OK;
}

KConvStatus
kmatch_new (const KConvOptions * options, KMatch ** out)
{
  static const KConvOptions defaults = { KCONV_BACKEND_AUTO, 0, -1 };
  kconv_clear_error ();
  if (!out)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_new: no place "
        "for the matcher (out is NULL)");
  *out = NULL;
  if (!options)
    options = &defaults;
  if (!kconv_options_valid (options))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_new: negative "
        "n_threads, or an unknown backend, GPU wait or copy streams");
  KMatch *m = calloc (1, sizeof *m);
  if (!m)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  MatchStart start = { m, options };
  KConvStatus st = kconv_backend_start (options->backend, match_start, &start,
      &m->ops);
  if (st != KCONV_OK) {
    free (m);
    return st;
  }
  m->n_threads = kconv_team_threads (options->n_threads);
  *out = m;
  return KCONV_OK;
}

/* The template (and mask) to the device, where it searches this template */
static KConvStatus
device_template (KMatch * m)
{
  if (m->depth)
    return m->impl && m->ops->match_set_template_deep ?
        m->ops->match_set_template_deep (m->impl, m->tmpl16, m->tw, m->th,
        m->mask) : KCONV_OK;
  if (!m->impl || !m->ops->match_takes (m->impl, m->ch, 1, 1))
    return KCONV_OK;
  return m->ops->match_set_template (m->impl, m->tmpl, m->tw, m->th, m->ch,
      m->mask);
}

/* Frees the template, of either kind, and its mask */
static void
forget_template (KMatch * m)
{
  free (m->tmpl);
  free (m->mask);
  free (m->tmpl_masked);
  free (m->tmpl16);
  free (m->tmpl16_masked);
  m->tmpl = m->mask = m->tmpl_masked = NULL;
  m->tmpl16 = m->tmpl16_masked = NULL;
  m->depth = 0;
  kmatch_scorer_free (m->scorer);
  m->scorer = NULL;
  kmatch_refiner_free (m->refiner);
  m->refiner = NULL;
}

KConvStatus
kmatch_set_template (KMatch * m, const uint8_t * samples, int width,
    int height, ptrdiff_t stride, int channels)
{
  kconv_clear_error ();
  if (!m || !samples || width < 1 || height < 1 || channels < 1
      || channels > KCONV_MAX_CHANNELS || stride < (ptrdiff_t) width * channels)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_set_template: no "
        "template, or a size, channel count or stride out of range");
  uint8_t *t = malloc ((size_t) width * height * channels);
  if (!t)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int y = 0; y < height; y++)
    memcpy (t + (size_t) y * width * channels, samples + y * stride,
        (size_t) width * channels);
  forget_template (m);
  m->tmpl = t;
  m->tw = width;
  m->th = height;
  m->ch = channels;
  m->pixels = width * height;
  return device_template (m);
}

KConvStatus
kmatch_set_template_deep (KMatch * m, const uint16_t * values, int width,
    int height, ptrdiff_t stride, int depth)
{
  kconv_clear_error ();
  if (!m || !values || width < 1 || height < 1 || stride < width
      || depth < 9 || depth > 16)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_set_template_"
        "deep: no template, or a size, stride or depth (9 .. 16) out of "
        "range");
  const unsigned max = (1u << depth) - 1;
  uint16_t *t = malloc (sizeof *t * (size_t) width * height);
  if (!t)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const uint16_t v = values[(ptrdiff_t) y * stride + x];
      if (v > max) {
        free (t);
        return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_set_"
            "template_deep: value %u at (%d, %d) is over %u, the largest of "
            "%d bits", v, x, y, max, depth);
      }
      t[(size_t) y * width + x] = v;
    }
  forget_template (m);
  m->tmpl16 = t;
  m->depth = depth;
  m->tw = width;
  m->th = height;
  m->ch = 1;
  m->pixels = width * height;
  return device_template (m);
}

KConvStatus
kmatch_set_template_mask (KMatch * m, const uint8_t * mask,
    ptrdiff_t mask_stride)
{
  kconv_clear_error ();
  if (!m || (!m->tmpl && !m->tmpl16) || (mask && mask_stride < m->tw))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "kmatch_set_template_mask: no template yet, or a mask stride "
        "narrower than the template");
  const size_t n = (size_t) m->tw * m->th * m->ch;
  uint8_t *bm = NULL, *tm = NULL;
  uint16_t *tm16 = NULL;
  int pixels = m->tw * m->th;
  if (mask) {
    bm = malloc (n);
    if (m->depth)
      tm16 = malloc (sizeof *tm16 * n);
    else
      tm = malloc (n);
    if (!bm || (!tm && !tm16)) {
      free (bm);
      free (tm);
      free (tm16);
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    pixels = 0;
    for (int y = 0; y < m->th; y++)
      for (int x = 0; x < m->tw; x++) {
        const uint8_t keep = mask[y * mask_stride + x] ? 0xff : 0;
        pixels += keep != 0;
        for (int c = 0; c < m->ch; c++) {
          const size_t at = ((size_t) y * m->tw + x) * m->ch + c;
          bm[at] = keep;
          if (tm16)
            tm16[at] = keep ? m->tmpl16[at] : 0;
          else
            tm[at] = m->tmpl[at] & keep;
        }
      }
  }
  free (m->mask);
  free (m->tmpl_masked);
  free (m->tmpl16_masked);
  m->mask = bm;
  m->tmpl_masked = tm;
  m->tmpl16_masked = tm16;
  m->pixels = pixels;
  kmatch_scorer_free (m->scorer);
  m->scorer = NULL;
  kmatch_refiner_free (m->refiner);
  m->refiner = NULL;
  return device_template (m);
}

KConvStatus
kmatch_set_method (KMatch * m, KMatchMethod method)
{
  kconv_clear_error ();
  if (!m || !kmatch_method_name (method))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_set_method: no "
        "matcher, or an unknown method");
  if (method != m->method) {
    kmatch_scorer_free (m->scorer);
    m->scorer = NULL;
  }
  m->method = method;
  return KCONV_OK;
}

KMatchMethod
kmatch_method (const KMatch * m)
{
  return m ? m->method : KMATCH_METHOD_SAD;
}

const char *
kmatch_method_name (KMatchMethod method)
{
  static const char *const names[] = { "sad", "ssd", "ncc", "zncc" };
  return (unsigned) method < 4 ? names[method] : NULL;
}

int
kmatch_template_pixels (const KMatch * m)
{
  return m ? m->pixels : 0;
}

/* The device takes the search when it holds this template and region. */
static int
on_device_backend (const KMatch * m, int mw, int mh)
{
  return m->impl && m->ops->match_takes (m->impl, m->ch, mw, mh);
}

static int
overlaps (const KMatchPosition * a, const KMatchPosition * b, int w, int h)
{
  return a->x < b->x + w && b->x < a->x + w && a->y < b->y + h
      && b->y < a->y + h;
}

/* The matcher's own SAD map, grown to `cells`; NULL when out of memory. */
static uint64_t *
grow_map (KMatch * m, size_t cells)
{
  if (cells > m->map_size) {
    free (m->map);
    m->map = malloc (cells * sizeof (uint64_t));
    m->map_size = m->map ? cells : 0;
  }
  return m->map;
}

/* Greedy: the best position, then the best that overlaps none taken, ...
 * Row-major scans with a strict < keep the smallest y, then x, on ties. */
static int
pick_best (const uint64_t * map, int mw, int mh, int tw, int th, int x0,
    int y0, int max_matches, KMatchPosition * out)
{
  int n = 0;
  while (n < max_matches) {
    KMatchPosition best = { -1, -1, UINT64_MAX };
    for (int y = 0; y < mh; y++)
      for (int x = 0; x < mw; x++) {
        uint64_t s = map[(size_t) y * mw + x];
        if (s >= best.sad)
          continue;
        KMatchPosition p = { x + x0, y + y0, s };
        int free_spot = 1;
        for (int k = 0; k < n && free_spot; k++)
          free_spot = !overlaps (&p, &out[k], tw, th);
        if (free_spot)
          best = p;
      }
    if (best.x < 0)
      break;
    out[n++] = best;
  }
  return n;
}

/* The searched region (NULL: the whole frame), checked: inside the frame
 * and holding the template. */
static KConvStatus
search_region (const KMatch * m, const KConvImage * frame,
    const KMatchRegion * region, KMatchRegion * r)
{
  const KMatchRegion whole = { 0, 0, frame->width, frame->height };
  *r = region ? *region : whole;
  if (r->x < 0 || r->y < 0 || r->width < 1 || r->height < 1
      || r->x + r->width > frame->width || r->y + r->height > frame->height
      || m->tw > r->width || m->th > r->height)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: the "
        "region lies outside the frame or is smaller than the template");
  return KCONV_OK;
}

/* The positions from a backend's best (best_only) or from the map */
static int
matches_found (const KMatch * m, const KMatchPosition * best,
    const uint64_t * map, int mw, int mh, const KMatchRegion * r,
    int max_matches, KMatchPosition * matches)
{
  if (!map) {
    const KMatchPosition at = { best->x + r->x, best->y + r->y, best->sad };
    matches[0] = at;
    return 1;
  }
  return pick_best (map, mw, mh, m->tw, m->th, r->x, r->y, max_matches,
      matches);
}

/* A backend's match_best answer (n positions relative to region r; -1:
 * memory was short; -2: it could not tell) as the search's: 1 when it
 * answered (*st says how), 0 when a map must be made. */
static int
took_best (int n, const KMatchRegion * r, KMatchPosition * matches,
    int *n_matches, KConvStatus * st)
{
  if (n == -1) {
    *st = kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    return 1;
  }
  if (n < 0)
    return 0;
  for (int i = 0; i < n; i++) {
    matches[i].x += r->x;
    matches[i].y += r->y;
  }
  *n_matches = n;
  *st = KCONV_OK;
  return 1;
}

/* A device's query for region r of a frame of 16-bit words */
static KMatchDeepQuery
deep_query (const KMatch * m, const KConvImage * frame, const KMatchRegion * r,
    int on_device)
{
  const KMatchDeepQuery q = { frame->data + (ptrdiff_t) r->y * frame->stride +
        (ptrdiff_t) r->x * frame->pixel_stride + frame->channel_offset[0],
    frame->stride, on_device, frame->pixel_stride, frame->depth, frame->shift,
    frame->big_endian, r->width - m->tw + 1, r->height - m->th + 1,
    m->n_threads
  };
  return q;
}

/* A search of 16-bit values (kmatch_set_template_deep): on the device
 * where it takes them, else packed and mapped on the host. */
static KConvStatus
search_deep (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map)
{
  const int depth = frame->depth > 8 ? frame->depth : 8;
  if (luma || frame->n_channels != 1 || depth != (m->depth ? m->depth : 8))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: a "
        "%d-bit frame of %d channel(s) and a %d-bit template: samples "
        "deeper than bytes are matched one channel at a time, frame and "
        "template of one depth", depth, luma ? 3 : frame->n_channels,
        m->depth ? m->depth : 8);
  KMatchRegion r;
  KConvStatus st = search_region (m, frame, region, &r);
  if (st != KCONV_OK)
    return st;
  const int mw = r.width - m->tw + 1, mh = r.height - m->th + 1;
  const uint8_t *base = frame->data + (ptrdiff_t) r.y * frame->stride +
      (ptrdiff_t) r.x * frame->pixel_stride + frame->channel_offset[0];
  uint64_t *map = sad_map;
  KMatchPosition best = { 0, 0, 0 };

  if (m->impl && m->ops->match_search_deep && mw <= 65535 && mh <= 65535) {
    /* the device brings back the best alone, or a map to pick from */
    const int best_only = max_matches == 1 && !sad_map;
    if (!best_only && !map && (map = grow_map (m, (size_t) mw * mh)) == NULL)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    const KMatchDeepQuery q = deep_query (m, frame, &r, on_device);
    st = m->ops->match_search_deep (m->impl, &q, &best, map);
    if (st != KCONV_OK)
      return st;
  } else if (on_device) {
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
        "kmatch_search_device: the matcher does not search 16-bit samples "
        "on CUDA here");
  } else {
    size_t need = (size_t) r.width * r.height;
    if (need > m->packed16_size) {
      free (m->packed16);
      m->packed16 = malloc (need * sizeof *m->packed16);
      m->packed16_size = m->packed16 ? need : 0;
      if (!m->packed16)
        return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    kmatch_cpu_pack_deep (m->packed16, base, frame->stride,
        frame->pixel_stride, frame->depth, frame->shift, frame->big_endian,
        r.width, r.height, m->n_threads);
    const KMatchDeepHostQuery q = { m->packed16, r.width,
      m->mask ? m->tmpl16_masked : m->tmpl16, m->mask, m->tw, m->th, mw, mh,
      m->n_threads
    };
    /* without a map to fill, a backend may skip what it can prove loses */
    if (!sad_map && m->ops->match_best_deep
        && took_best (m->ops->match_best_deep (&m->best_state_deep, &q,
                max_matches, matches), &r, matches, n_matches, &st))
      return st;
    if (!map && (map = grow_map (m, (size_t) mw * mh)) == NULL)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    if (m->ops->match_map_deep (&q, map) != 0)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  /* (the host always fills a map) */
  *n_matches = matches_found (m, &best, map, mw, mh, &r, max_matches, matches);
  return KCONV_OK;
}

/* kmatch_search and kmatch_search_luma: the frame's samples are taken as
 * they are (luma 0) or as the luma of its R, G, B (luma 1).  With a slot,
 * a search the GPU can answer alone is queued on it and left there
 * (slot->match_on_gpu). */
/* The sums a device picked, scored by the host, back in the frame */
static void
report_sums (KMatch * m, const KMatchSums * sums, int n,
    const KMatchRegion * r, KMatchPosition * matches, int *n_matches)
{
  kmatch_scorer_report (m->scorer, sums, n, matches);
  for (int i = 0; i < n; i++) {
    matches[i].x += r->x;
    matches[i].y += r->y;
  }
  *n_matches = n;
}

/* The scored search of 16-bit words on the device, when it takes it (a
 * template without a mask): 1 and *st; else 0. */
static int
search_scored_deep_on_device (KMatch * m, const KConvImage * frame,
    int on_device, const KMatchRegion * r, int max_matches,
    KMatchPosition * matches, int *n_matches, KConvStatus * st)
{
  const int mw = r->width - m->tw + 1, mh = r->height - m->th + 1;
  KMatchScoring scoring;
  if (!m->impl || !m->ops->match_search_scored_deep || mw > 65535
      || mh > 65535 || !kmatch_scorer_scoring (m->scorer, &scoring))
    return 0;
  const KMatchDeepQuery q = deep_query (m, frame, r, on_device);
  KMatchSums *sums = malloc (sizeof *sums * (size_t) max_matches);
  if (!sums) {
    *st = kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    return 1;
  }
  int n = 0;
  *st = m->ops->match_search_scored_deep (m->impl, &q, &scoring, max_matches,
      sums, &n);
  if (*st == KCONV_ERROR_BACKEND_UNAVAILABLE && !on_device) {
    free (sums);
    return 0;                   /* (a template too large: the host's) */
  }
  if (*st == KCONV_OK)
    report_sums (m, sums, n, r, matches, n_matches);
  free (sums);
  return 1;
}

/* The same search on the device, when it takes it (a template without a
 * mask, a search without maps): 1 and *st; else 0. */
static int
search_scored_on_device (KMatch * m, const KConvImage * frame, int luma,
    int on_device, const KMatchRegion * r, int max_matches,
    KMatchPosition * matches, int *n_matches, KConvStatus * st)
{
  const int mw = r->width - m->tw + 1, mh = r->height - m->th + 1;
  KMatchScoring scoring;
  if (m->depth)
    return search_scored_deep_on_device (m, frame, on_device, r, max_matches,
        matches, n_matches, st);
  if (!m->ops->match_search_scored || !on_device_backend (m, mw, mh)
      || (size_t) mw * mh > INT_MAX
      || !kmatch_scorer_scoring (m->scorer, &scoring))
    return 0;
  const int ps = frame->pixel_stride;
  int in_order = !luma && ps == m->ch;
  for (int c = 0; c < m->ch && in_order; c++)
    in_order = frame->channel_offset[c] == c;
  const KMatchQuery q = { frame->data + (ptrdiff_t) r->y * frame->stride +
        (ptrdiff_t) r->x * ps, frame->stride, on_device, in_order, ps,
    {frame->channel_offset[0], frame->channel_offset[1],
        frame->channel_offset[2]}, luma, mw, mh, m->n_threads
  };
  KMatchSums *sums = malloc (sizeof *sums * (size_t) max_matches);
  if (!sums) {
    *st = kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    return 1;
  }
  int n = 0;
  *st = m->ops->match_search_scored (m->impl, &q, &scoring, max_matches,
      sums, &n);
  if (*st == KCONV_OK)
    report_sums (m, sums, n, r, matches, n_matches);
  free (sums);
  return 1;
}

/* A search by ssd, ncc or zncc (kmatch-methods.c): bytes, or one channel
 * of 16-bit values, on the device where it takes it (kmatch-scoring.h),
 * else on the host. */
static KConvStatus
search_scored (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sum_map, double *score_map)
{
  const int depth = frame->depth > 8 ? frame->depth : 8;
  if ((m->depth || depth > 8) && (luma || frame->n_channels != 1
          || depth != (m->depth ? m->depth : 8)))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: a "
        "%d-bit frame of %d channel(s) and a %d-bit template: samples "
        "deeper than bytes are matched one channel at a time, frame and "
        "template of one depth", depth, luma ? 3 : frame->n_channels,
        m->depth ? m->depth : 8);
  if (on_device && (sum_map || score_map))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "kmatch_search_device: no maps from a search in device memory");
  if (sum_map && m->method != KMATCH_METHOD_SSD)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: a sum "
        "map is the SAD or SSD; %s has scores (kmatch_search_scores)",
        kmatch_method_name (m->method));
  if (frame->n_channels != (luma ? 3 : m->ch) || m->ch > 3)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: the "
        "frame's channels differ from the template's, or a template of "
        "more than 3 channels for %s", kmatch_method_name (m->method));
  KMatchRegion r;
  KConvStatus st = search_region (m, frame, region, &r);
  if (st != KCONV_OK)
    return st;
  if (!m->scorer && !(m->scorer = m->depth ?
          kmatch_scorer_new_deep (m->method, m->tmpl16, m->tw, m->th,
              m->depth, m->mask) : kmatch_scorer_new (m->method, m->tmpl,
              m->tw, m->th, m->ch, m->mask)))
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  if (!sum_map && !score_map && search_scored_on_device (m, frame, luma,
          on_device, &r, max_matches, matches, n_matches, &st))
    return st;
  if (on_device)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
        "kmatch_search_device: the %s method searches frames in device "
        "memory on CUDA, for templates without transparency (use-alpha "
        "off, or no alpha)", kmatch_method_name (m->method));
  const KMatchScoredRegion sr = {
    frame->data + (ptrdiff_t) r.y * frame->stride +
        (ptrdiff_t) r.x * frame->pixel_stride, frame->stride,
    frame->pixel_stride, frame->channel_offset, luma, r.width, r.height,
    m->n_threads, frame->depth, frame->shift, frame->big_endian
  };
  st = kmatch_scorer_search (m->scorer, m->ops, &sr, max_matches, matches,
      n_matches, score_map, sum_map);
  for (int i = 0; st == KCONV_OK && i < *n_matches; i++) {
    matches[i].x += r.x;
    matches[i].y += r.y;
  }
  return st;
}

/* What a SAD of the template is divided by for its score: the largest it
 * can be */
static double
sad_norm (const KMatch * m)
{
  return ((1u << (m->depth ? m->depth : 8)) - 1.0) * m->pixels * m->ch;
}

static KConvStatus
search_sad (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map, KConvSlot * slot);
static KConvStatus search_sad_scored (KMatch * m, const KConvImage * frame,
    int luma, int on_device, const KMatchRegion * region, int max_matches,
    KMatchPosition * matches, int *n_matches, uint64_t * sad_map,
    double *score_map, KConvSlot * slot);

static KConvStatus
search (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map, double *score_map, KConvSlot * slot)
{
  if (!m || (!m->tmpl && !m->tmpl16) || !frame || !frame->data || !matches
      || !n_matches || max_matches < 1 || (luma && m->ch != 1)
      || frame->pixel_stride < frame->n_channels)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: no "
        "template, frame or result array, or a luma search for a template "
        "of colour");
  *n_matches = 0;
  KConvStatus st = m->method != KMATCH_METHOD_SAD ?
      search_scored (m, frame, luma, on_device, region, max_matches, matches,
      n_matches, sad_map, score_map) :
      search_sad_scored (m, frame, luma, on_device, region, max_matches,
      matches, n_matches, sad_map, score_map, slot);
  for (int i = 0; st == KCONV_OK && i < *n_matches; i++) {
    matches[i].sub_x = matches[i].x;
    matches[i].sub_y = matches[i].y;
  }
  return st;
}

/* The SAD search, with the scores of what it found (and of every
 * position, with score_map) */
static KConvStatus
search_sad_scored (KMatch * m, const KConvImage * frame, int luma,
    int on_device, const KMatchRegion * region, int max_matches,
    KMatchPosition * matches, int *n_matches, uint64_t * sad_map,
    double *score_map, KConvSlot * slot)
{
  if (score_map && !sad_map && !(sad_map = grow_map (m,
              (size_t) frame->width * frame->height)))
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  KConvStatus st = search_sad (m, frame, luma, on_device, region,
      max_matches, matches, n_matches, sad_map, slot);
  const double norm = sad_norm (m);
  for (int i = 0; st == KCONV_OK && i < *n_matches; i++)
    matches[i].score = matches[i].sad / norm;
  if (st == KCONV_OK && score_map) {
    KMatchRegion r;
    search_region (m, frame, region, &r);
    const size_t cells = (size_t) (r.width - m->tw + 1) *
        (r.height - m->th + 1);
    for (size_t i = 0; i < cells; i++)
      score_map[i] = sad_map[i] / norm;
  }
  if (slot)
    slot->match_norm = norm;
  return st;
}

/* The SAD search */
static KConvStatus
search_sad (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map, KConvSlot * slot)
{
  if (m->depth || frame->depth > 8)
    return search_deep (m, frame, luma, on_device, region, max_matches,
        matches, n_matches, sad_map);
  if (frame->n_channels != (luma ? 3 : m->ch))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch search: the "
        "frame's channels differ from the template's");
  KMatchRegion r;
  KConvStatus search_st = search_region (m, frame, region, &r);
  if (search_st != KCONV_OK)
    return search_st;

  const int ch = m->ch, ps = frame->pixel_stride;
  const int mw = r.width - m->tw + 1, mh = r.height - m->th + 1;

  /* the region as it lies in the frame, and whether its samples are the
   * packed ones the search compares */
  const uint8_t *base = frame->data + (ptrdiff_t) r.y * frame->stride +
      (ptrdiff_t) r.x * ps;
  ptrdiff_t stride = frame->stride;
  int in_order = !luma && ps == ch;
  for (int c = 0; c < ch && in_order; c++)
    in_order = frame->channel_offset[c] == c;

  if (on_device_backend (m, mw, mh)) {
    KMatchQuery q = { base, stride, on_device, in_order, ps,
      {frame->channel_offset[0], frame->channel_offset[1],
          frame->channel_offset[2]}, luma, mw, mh, m->n_threads
    };
    int best_only = max_matches == 1 && !sad_map;
    uint64_t *map = NULL;
    if (!best_only) {
      map = sad_map;
      if (!map && (map = grow_map (m, (size_t) mw * mh)) == NULL)
        return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if (slot && best_only) {
      slot->origin_x = r.x;
      slot->origin_y = r.y;
      KConvStatus st = m->ops->match_submit (m->impl, slot, &q);
      slot->match_on_gpu = st == KCONV_OK;
      return st;
    }
    KMatchPosition best;
    KConvStatus st = m->ops->match_search (m->impl, &q, &best, map);
    if (st != KCONV_OK)
      return st;
    *n_matches = matches_found (m, &best, map, mw, mh, &r, max_matches,
        matches);
    return KCONV_OK;
  }
  if (on_device)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
        "kmatch_search_device: the matcher does not run on CUDA");

  if (!in_order) {
    size_t need = (size_t) r.width * r.height * ch;
    if (need > m->packed_size) {
      free (m->packed);
      m->packed = malloc (need);
      m->packed_size = m->packed ? need : 0;
      if (!m->packed)
        return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    kmatch_cpu_pack (m->packed, base, frame->stride, ps,
        frame->channel_offset, ch, luma, r.width, r.height, m->n_threads);
    base = m->packed;
    stride = (ptrdiff_t) r.width * ch;
  }

  const KMatchHostQuery q = { base, stride, m->tmpl, m->tmpl_masked, m->mask,
    m->tw, m->th, ch, mw, mh, m->n_threads
  };
  /* without a map to fill, a backend may skip what it can prove loses */
  if (!sad_map && m->ops->match_best
      && took_best (m->ops->match_best (&m->best_state, &q, max_matches,
              matches), &r, matches, n_matches, &search_st))
    return search_st;

  uint64_t *map = sad_map;
  if (!map && (map = grow_map (m, (size_t) mw * mh)) == NULL)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  m->ops->match_map (&q, map);

  *n_matches = pick_best (map, mw, mh, m->tw, m->th, r.x, r.y, max_matches,
      matches);
  return KCONV_OK;
}

KConvStatus
kmatch_search (KMatch * m, const KConvImage * frame,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map)
{
  kconv_clear_error ();
  return search (m, frame, 0, 0, region, max_matches, matches, n_matches,
      sad_map, NULL, NULL);
}

KConvStatus
kmatch_search_luma (KMatch * m, const KConvImage * rgb_frame,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map)
{
  kconv_clear_error ();
  return search (m, rgb_frame, 1, 0, region, max_matches, matches,
      n_matches, sad_map, NULL, NULL);
}

KConvStatus
kmatch_search_scores (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, double *score_map)
{
  kconv_clear_error ();
  return search (m, frame, luma ? 1 : 0, 0, region, max_matches, matches,
      n_matches, NULL, score_map, NULL);
}

KConvStatus
kmatch_search_device (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches)
{
  kconv_clear_error ();
  return search (m, frame, luma, 1, region, max_matches, matches, n_matches,
      NULL, NULL, NULL);
}

KConvStatus
kmatch_submit (KMatch * m, KConvSlot * slot, const KConvImage * frame,
    int luma, const KMatchRegion * region, int max_matches)
{
  kconv_clear_error ();
  if (!slot || max_matches < 1)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_submit: no "
        "slot, or max_matches below 1");
  /* the slot's earlier frame, if the caller did not wait for it */
  KConvStatus st = kconv_slot_wait (slot);
  if (st != KCONV_OK)
    return st;
  if (max_matches > slot->matches_size) {
    KMatchPosition *grown = realloc (slot->matches,
        sizeof *grown * (size_t) max_matches);
    if (!grown)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    slot->matches = grown;
    slot->matches_size = max_matches;
  }
  slot->n_matches = 0;
  slot->match_on_gpu = 0;
  return search (m, frame, luma, 0, region, max_matches, slot->matches,
      &slot->n_matches, NULL, NULL, slot);
}

KConvStatus
kmatch_slot_matches (KConvSlot * slot, KMatchPosition * matches, int *n_matches)
{
  kconv_clear_error ();
  if (!slot || !matches || !n_matches)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_slot_matches: "
        "no slot or no place for the matches");
  const KConvBackendOps *device = kconv_backend_device ();
  if (slot->match_on_gpu && device) {
    KMatchPosition best;
    device->match_slot_best (slot, &best);
    const int x = best.x + slot->origin_x, y = best.y + slot->origin_y;
    const KMatchPosition at = { x, y, best.sad, best.sad / slot->match_norm,
      0, x, y
    };
    slot->matches[0] = at;
    slot->n_matches = 1;
    slot->match_on_gpu = 0;
  }
  memcpy (matches, slot->matches, sizeof *matches * (size_t) slot->n_matches);
  *n_matches = slot->n_matches;
  return KCONV_OK;
}

KConvBackend
kmatch_backend (const KMatch * m)
{
  return m->ops->id;
}

void
kmatch_free (KMatch * m)
{
  if (!m)
    return;
  if (m->impl)
    m->ops->match_free (m->impl);
  forget_template (m);
  free (m->packed);
  free (m->packed16);
  free (m->map);
  if (m->best_state)
    m->ops->match_state_free (m->best_state);
  if (m->best_state_deep)
    m->ops->match_state_free_deep (m->best_state_deep);
  free (m);
}
