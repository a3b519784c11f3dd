/* kconv: matching 16-bit samples on a backend against the scalar
 * reference, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames of 16-bit words as the video formats lay them (grey in either
 * byte order, P010's values 6 bits up, 12-bit planes, a word inside a
 * larger pixel), random at full range with stray bits below and above the
 * value, odd sizes, padded strides, masks, regions, planted copies and
 * ties: the SAD maps must equal the reference's, computed here from the
 * values, and the positions the reference matcher's.  And by ssd, ncc and
 * zncc, with and without a mask, in regions: every score within 1e-5 of
 * the formulas in double precision (means first; SSD exact), computed
 * here, the best position the formulas' (or a score within 1e-5 of it),
 * the same bits as the reference backend's, a planted copy found, under
 * a change of light for zncc.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "match-deep-table.h"

typedef struct
{
  const char *name;
  int ps, offset, depth, shift, big_endian;
} WordLayout;

static const WordLayout layouts[] = {
  {"GRAY16_LE", 2, 0, 16, 0, 0},
  {"GRAY16_BE", 2, 0, 16, 0, 1},
  {"P010 luma", 2, 0, 10, 6, 0},
  {"I420_12LE luma", 2, 0, 12, 0, 0},
  {"10-bit word in a 4-word pixel", 8, 2, 10, 0, 0},
};

static unsigned
value_at (const WordLayout * l, const uint8_t * p)
{
  unsigned w = l->big_endian ? (unsigned) p[0] << 8 | p[1] :
      (unsigned) p[1] << 8 | p[0];
  return (w >> l->shift) & ((1u << l->depth) - 1);
}

static void
put_value (const WordLayout * l, uint8_t * p, unsigned v)
{
  /* keep the stray bits around the value */
  unsigned w = l->big_endian ? (unsigned) p[0] << 8 | p[1] :
      (unsigned) p[1] << 8 | p[0];
  const unsigned field = ((1u << l->depth) - 1) << l->shift;
  w = (w & ~field) | (v << l->shift & field);
  p[l->big_endian ? 0 : 1] = (uint8_t) (w >> 8);
  p[l->big_endian ? 1 : 0] = (uint8_t) w;
}

/* Smooth content, as in photographs (where the search prunes): a random
 * walk along each row, pulled towards the row above */
static void
fill_smooth (const WordLayout * l, uint8_t * frame, ptrdiff_t stride,
    uint16_t * values, int w, int h)
{
  const int max = (1 << l->depth) - 1, step = max / 40 + 1;
  for (int y = 0; y < h; y++) {
    int v = y ? values[(y - 1) * w] : rnd_range (0, max);
    for (int x = 0; x < w; x++) {
      const int up = y ? values[(y - 1) * w + x] : v;
      v = (v + up) / 2 + rnd_range (-step, step);
      v = v < 0 ? 0 : v > max ? max : v;
      put_value (l, frame + y * stride + x * l->ps + l->offset, (unsigned) v);
      values[y * w + x] = (uint16_t) v;
    }
  }
}

/* A frame of w x h pixels of layout l, rows *stride bytes apart (padded
 * by a random amount), random bytes everywhere */
static uint8_t *
noisy_frame (const WordLayout * l, int w, int h, ptrdiff_t *stride)
{
  *stride = (ptrdiff_t) w *l->ps + 2 * rnd_range (0, 9);
  uint8_t *frame = malloc (*stride * h);
  for (ptrdiff_t i = 0; i < *stride * h; i++)
    frame[i] = (uint8_t) rnd ();
  return frame;
}

/* The frame's words as an image of their layout */
static KConvImage
image_of (const WordLayout * l, uint8_t * frame, int w, int h, ptrdiff_t stride)
{
  KConvImage im = { frame, w, h, stride, l->ps, 1, {l->offset}
  };
  im.depth = l->depth;
  im.shift = l->shift;
  im.big_endian = l->big_endian;
  return im;
}

/* A reference matcher and one on backend, with the template and mask */
static int
matchers (KConvBackend backend, const WordLayout * l, const uint16_t * t,
    int tw, int th, const uint8_t * mask, KMatch ** mr, KMatch ** m)
{
  const KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  const KConvOptions opt = { backend, rnd_range (1, 3), -1 };
  return kmatch_new (&ref_opt, mr) == KCONV_OK
      && kmatch_new (&opt, m) == KCONV_OK
      && kmatch_set_template_deep (*mr, t, tw, th, tw, l->depth) == KCONV_OK
      && kmatch_set_template_deep (*m, t, tw, th, tw, l->depth) == KCONV_OK
      && kmatch_set_template_mask (*mr, mask, tw) == KCONV_OK
      && kmatch_set_template_mask (*m, mask, tw) == KCONV_OK;
}

/* planted: 0, 1 (an exact copy of the template in the frame), 2 (a copy
 * with noise); SMOOTH_CUT: smooth content and the template cut from it
 * with noise */
#define SMOOTH_CUT 3

static void
run_case (KConvBackend backend, const WordLayout * l, int w, int h, int tw,
    int th, int use_region, int max_matches, int planted, int ties)
{
  const unsigned max = (1u << l->depth) - 1;
  ptrdiff_t stride;
  uint8_t *frame = noisy_frame (l, w, h, &stride);
  uint16_t *values = malloc (sizeof *values * (size_t) w * h);
  uint16_t *t = malloc (sizeof *t * (size_t) tw * th);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *p = frame + y * stride + x * l->ps + l->offset;
      if (ties)
        put_value (l, p, rnd () % 2 ? max : 0);
      values[y * w + x] = (uint16_t) value_at (l, p);
    }
  for (int i = 0; i < tw * th; i++)
    t[i] = (uint16_t) (ties ? (rnd () % 2 ? max : 0) : rnd () & max);
  const int px = rnd_range (0, w - tw), py = rnd_range (0, h - th);
  if (planted == SMOOTH_CUT) {
    fill_smooth (l, frame, stride, values, w, h);
    const int noise = (int) (max / 200);
    for (int j = 0; j < th; j++)
      for (int i = 0; i < tw; i++) {
        int v = values[(py + j) * w + px + i] + rnd_range (-noise, noise);
        t[j * tw + i] = (uint16_t) (v < 0 ? 0 : v > (int) max ? (int) max : v);
      }
  } else if (planted)
    for (int j = 0; j < th; j++)
      for (int i = 0; i < tw; i++) {
        int v = t[j * tw + i] + (planted > 1 ? rnd_range (-40, 40) : 0);
        v = v < 0 ? 0 : v > (int) max ? (int) max : v;
        put_value (l, frame + (py + j) * stride + (px + i) * l->ps + l->offset,
            (unsigned) v);
        values[(py + j) * w + px + i] = (uint16_t) v;
      }

  KMatchRegion region = { 0, 0, w, h };
  if (use_region) {
    region.x = rnd_range (0, w - tw);
    region.y = rnd_range (0, h - th);
    region.width = rnd_range (tw, w - region.x);
    region.height = rnd_range (th, h - region.y);
  }
  const int mw = region.width - tw + 1, mh = region.height - th + 1;
  uint8_t *mask = NULL;
  const int masked = rnd () % 2;
  if (masked) {
    mask = malloc ((size_t) tw * th);
    for (int i = 0; i < tw * th; i++)
      mask[i] = rnd () % 3 != 0;
  }
  /* the map, worked out here from the values */
  uint64_t *expect = malloc (sizeof *expect * mw * mh);
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++) {
      uint64_t s = 0;
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++) {
          if (mask && !mask[j * tw + i])
            continue;
          const int d = values[(region.y + y + j) * w + region.x + x + i] -
              t[j * tw + i];
          s += (uint64_t) (d < 0 ? -d : d);
        }
      expect[y * mw + x] = s;
    }
  uint64_t *map = malloc (sizeof *map * mw * mh);
  memset (map, 0xa5, sizeof *map * mw * mh);
  const KConvImage im = image_of (l, frame, w, h, stride);
  KMatch *mr = NULL, *m = NULL;
  KMatchPosition pr[4], p[4], q[4];
  int nr = 0, n = 0, nq = 0;
  const KMatchRegion *rp = use_region ? &region : NULL;
  int ok = matchers (backend, l, t, tw, th, mask, &mr, &m)
      && kmatch_search (mr, &im, rp, max_matches, pr, &nr, NULL) == KCONV_OK
      && kmatch_search (m, &im, rp, max_matches, p, &n, map) == KCONV_OK
      && kmatch_search (m, &im, rp, max_matches, q, &nq, NULL) == KCONV_OK;
  char what[200];
  snprintf (what, sizeof what, "%s %dx%d template %dx%d%s, region %d,%d "
      "%dx%d, %d matches%s%s", l->name, w, h, tw, th, masked ? " masked" : "",
      region.x, region.y, region.width, region.height, max_matches,
      planted == SMOOTH_CUT ? ", smooth, cut" : planted ? ", planted" : "",
      ties ? ", ties" : "");
  CHECK (ok, "%s: search failed", what);
  if (ok) {
    CHECK (memcmp (map, expect, sizeof *map * mw * mh) == 0,
        "%s: SAD maps differ", what);
    CHECK (n == nr && memcmp (p, pr, sizeof *p * n) == 0,
        "%s: positions differ (%d,%d vs %d,%d)", what, n ? p[0].x : -1,
        n ? p[0].y : -1, nr ? pr[0].x : -1, nr ? pr[0].y : -1);
    CHECK (nq == nr && memcmp (q, pr, sizeof *q * nq) == 0,
        "%s: positions without a map differ (%d,%d sad %llu vs %d,%d sad "
        "%llu)", what, nq ? q[0].x : -1, nq ? q[0].y : -1,
        nq ? (unsigned long long) q[0].sad : 0ULL, pr[0].x, pr[0].y,
        (unsigned long long) pr[0].sad);
    if (planted == 1 && !use_region && !ties && !masked)
      CHECK (pr[0].sad == 0, "%s: planted copy at %d,%d not found", what, px,
          py);
  }
  kmatch_free (m);
  kmatch_free (mr);
  free (frame);
  free (values);
  free (t);
  free (mask);
  free (expect);
  free (map);
}

/* The score of every position by the formulas of kmatch.h in double
 * precision, means first (the largest sample max where they say 255) */
static void
formula_scores (const uint16_t * f, int w, const KMatchRegion * r,
    const uint16_t * t, int tw, int th, const uint8_t * mask,
    KMatchMethod method, double max, double *scores)
{
  const int mw = r->width - tw + 1, mh = r->height - th + 1;
  double n = 0, mt = 0;
  for (int i = 0; i < tw * th; i++)
    if (!mask || mask[i]) {
      n++;
      mt += t[i];
    }
  mt /= n;
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++) {
      double mf = 0;
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++)
          if (!mask || mask[j * tw + i])
            mf += f[(r->y + y + j) * w + r->x + x + i];
      mf /= n;
      double ft = 0, ff = 0, tt = 0, d2 = 0;
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++) {
          if (mask && !mask[j * tw + i])
            continue;
          double a = f[(r->y + y + j) * w + r->x + x + i], b = t[j * tw + i];
          d2 += (a - b) * (a - b);
          if (method == KMATCH_METHOD_ZNCC) {
            a -= mf;
            b -= mt;
          }
          ft += a * b;
          ff += a * a;
          tt += b * b;
        }
      double c = ff > 0 && tt > 0 ? ft / sqrt (ff * tt) : 0;
      scores[y * mw + x] = method == KMATCH_METHOD_SSD ?
          d2 / (max * max * n) : method == KMATCH_METHOD_NCC ? 1 - c :
          (1 - c) / 2;
    }
}

/* A search by a method other than sad of a 16-bit frame, against the
 * formulas and the reference backend */
static void
run_method_case (KConvBackend backend, const WordLayout * l,
    KMatchMethod method, int w, int h, int tw, int th, int use_region,
    int masked)
{
  const unsigned max = (1u << l->depth) - 1;
  ptrdiff_t stride;
  uint8_t *frame = noisy_frame (l, w, h, &stride);
  uint16_t *values = malloc (sizeof *values * (size_t) w * h);
  uint16_t *t = malloc (sizeof *t * (size_t) tw * th);
  fill_smooth (l, frame, stride, values, w, h);
  /* the template cut from the frame, its light changed for zncc (and
   * brightened for ncc, scaled), with a little noise */
  const int px = rnd_range (0, w - tw), py = rnd_range (0, h - th);
  const double gain = method == KMATCH_METHOD_SSD ? 1 : 0.8;
  const double lift = method == KMATCH_METHOD_ZNCC ? max / 20.0 : 0;
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++) {
      const double v = values[(py + j) * w + px + i] * gain + lift +
          rnd_range (-2, 2);
      t[j * tw + i] = (uint16_t) (v < 0 ? 0 : v > max ? max : v + 0.5);
    }
  KMatchRegion region = { 0, 0, w, h };
  if (use_region) {
    region.x = rnd_range (0, px);
    region.y = rnd_range (0, py);
    region.width = rnd_range (px + tw - region.x, w - region.x);
    region.height = rnd_range (py + th - region.y, h - region.y);
  }
  const int mw = region.width - tw + 1, mh = region.height - th + 1;
  uint8_t *mask = NULL;
  if (masked) {
    mask = malloc ((size_t) tw * th);
    for (int i = 0; i < tw * th; i++)
      mask[i] = rnd () % 4 != 0;
    mask[0] = 1;
  }
  double *expect = malloc (sizeof *expect * mw * mh);
  double *got = malloc (sizeof *got * mw * mh);
  formula_scores (values, w, &region, t, tw, th, mask, method, max, expect);
  const KConvImage im = image_of (l, frame, w, h, stride);
  KMatch *mr = NULL, *m = NULL;
  KMatchPosition pr[3], p[3], q[3];
  int nr = 0, n = 0, nq = 0;
  const KMatchRegion *rp = use_region ? &region : NULL;
  int ok = matchers (backend, l, t, tw, th, mask, &mr, &m)
      && kmatch_set_method (mr, method) == KCONV_OK
      && kmatch_set_method (m, method) == KCONV_OK
      && kmatch_search_scores (mr, &im, 0, rp, 3, pr, &nr, NULL) == KCONV_OK
      && kmatch_search_scores (m, &im, 0, rp, 3, p, &n, got) == KCONV_OK
      && kmatch_search (m, &im, rp, 3, q, &nq, NULL) == KCONV_OK;
  char what[200];
  snprintf (what, sizeof what, "%s %s %dx%d template %dx%d%s, region %d,%d "
      "%dx%d", kmatch_method_name (method), l->name, w, h, tw, th,
      masked ? " masked" : "", region.x, region.y, region.width, region.height);
  CHECK (ok, "%s: search failed", what);
  if (ok) {
    double worst = 0, best = INFINITY;
    int bx = 0, by = 0;
    for (int i = 0; i < mw * mh; i++) {
      const double d = fabs (got[i] - expect[i]);
      worst = d > worst ? d : worst;
      if (expect[i] < best) {
        best = expect[i];
        bx = i % mw;
        by = i / mw;
      }
    }
    const double tol = method == KMATCH_METHOD_SSD ? 1e-12 : 1e-5;
    CHECK (worst <= tol, "%s: a score %.3g from the formula", what, worst);
    const double at = expect[(p[0].y - region.y) * mw + p[0].x - region.x];
    CHECK (n > 0 && (at - best) <= 1e-5, "%s: best at %d,%d (%.6f), the "
        "formulas' at %d,%d (%.6f)", what, p[0].x, p[0].y, at,
        bx + region.x, by + region.y, best);
    CHECK (n == nr && nq == nr, "%s: %d, %d and %d matches", what, n, nq, nr);
    for (int i = 0; i < n && i < nr && i < nq; i++)
      CHECK (p[i].x == pr[i].x && p[i].y == pr[i].y && q[i].x == pr[i].x
          && q[i].y == pr[i].y && p[i].score == pr[i].score
          && q[i].score == pr[i].score && p[i].sad == pr[i].sad
          && p[i].correlation == pr[i].correlation, "%s: match %d at %d,%d "
          "(%.17g) vs the reference's %d,%d (%.17g)", what, i, p[i].x, p[i].y,
          p[i].score, pr[i].x, pr[i].y, pr[i].score);
    CHECK (p[0].score >= 0 && p[0].score <= 1, "%s: score %g", what,
        p[0].score);
    if (!masked && method != KMATCH_METHOD_SSD)
      CHECK (p[0].x == px && p[0].y == py, "%s: the template cut at %d,%d "
          "found at %d,%d", what, px, py, p[0].x, p[0].y);
  }
  kmatch_free (m);
  kmatch_free (mr);
  free (frame);
  free (values);
  free (t);
  free (mask);
  free (expect);
  free (got);
}

/* what a matcher refuses: depths that differ, colour, values over range */
static void
refusals (KConvBackend backend)
{
  KConvOptions opt = { backend, 1, -1 };
  KMatch *m = NULL;
  uint8_t px[64] = { 0 };
  uint16_t t[4] = { 1, 2, 3, 1023 };
  KMatchPosition p;
  int n;
  const KConvImage deep10 = { px, 4, 4, 8, 2, 1, {0}, 0, 10 };
  const KConvImage deep12 = { px, 4, 4, 8, 2, 1, {0}, 0, 12 };
  const KConvImage bytes = { px, 4, 4, 4, 1, 1, {0} };
  CHECK (kmatch_new (&opt, &m) == KCONV_OK, "create");
  CHECK (kmatch_set_template_deep (m, t, 2, 2, 2, 9) ==
      KCONV_ERROR_INVALID_ARGUMENT, "1023 refused in a 9-bit template");
  CHECK (kmatch_set_template_deep (m, t, 2, 2, 2, 17) ==
      KCONV_ERROR_INVALID_ARGUMENT, "17 bits refused");
  CHECK (kmatch_set_template_deep (m, t, 2, 2, 2, 10) == KCONV_OK,
      "10-bit template");
  CHECK (kmatch_search (m, &deep10, NULL, 1, &p, &n, NULL) == KCONV_OK
      && n == 1, "10-bit frame searched");
  CHECK (kmatch_search (m, &deep12, NULL, 1, &p, &n, NULL) ==
      KCONV_ERROR_INVALID_ARGUMENT, "12-bit frame, 10-bit template refused");
  CHECK (kmatch_search (m, &bytes, NULL, 1, &p, &n, NULL) ==
      KCONV_ERROR_INVALID_ARGUMENT, "8-bit frame, 10-bit template refused");
  CHECK (kmatch_set_template (m, px, 2, 2, 2, 1) == KCONV_OK, "8-bit");
  CHECK (kmatch_search (m, &deep10, NULL, 1, &p, &n, NULL) ==
      KCONV_ERROR_INVALID_ARGUMENT, "10-bit frame, 8-bit template refused");
  kmatch_free (m);
}

void
match_deep_table_run (KConvBackend backend, unsigned seed)
{
  test_rng_seed (seed ^ 0x16b17u);
  refusals (backend);
  const int n_layouts = (int) (sizeof layouts / sizeof layouts[0]);
  for (int k = 0; k < 60; k++) {
    const WordLayout *l = &layouts[k % n_layouts];
    const int w = rnd_range (1, 70), h = rnd_range (1, 50);
    const int tw = rnd_range (1, w < 24 ? w : 24);
    const int th = rnd_range (1, h < 24 ? h : 24);
    run_case (backend, l, w, h, tw, th, rnd () % 3 == 0, rnd_range (1, 3),
        (int) (rnd () % 3), k % 7 == 6);
  }
  /* larger frames: a template of a photograph's size class, planted in
   * noise or cut from smooth content (where the CPU's search prunes) */
  for (int k = 0; k < 4 * n_layouts; k++)
    run_case (backend, &layouts[k % n_layouts], rnd_range (150, 330),
        rnd_range (100, 200), rnd_range (20, 64), rnd_range (20, 48),
        k % 2, k % 3 + 1, k < 2 * n_layouts ? 1 : SMOOTH_CUT, 0);
}

void
match_deep_methods_table_run (KConvBackend backend, unsigned seed)
{
  test_rng_seed (seed ^ 0x55d16u);
  const int n_layouts = (int) (sizeof layouts / sizeof layouts[0]);
  /* the other methods: small cases (the direct correlation), a few large
   * (the FFT's, on the CPU) */
  for (int k = 0; k < 36; k++) {
    const WordLayout *l = &layouts[k % n_layouts];
    const int w = rnd_range (8, 60), h = rnd_range (8, 40);
    run_method_case (backend, l, (KMatchMethod) (1 + k % 3), w, h,
        rnd_range (3, w < 20 ? w : 20), rnd_range (3, h < 16 ? h : 16),
        k % 4 == 1, k % 5 >= 3);
  }
  for (int k = 0; k < 6; k++)
    run_method_case (backend, &layouts[k % n_layouts],
        (KMatchMethod) (1 + k % 3), rnd_range (200, 260), rnd_range (120, 160),
        rnd_range (40, 64), rnd_range (40, 64), k % 2, k >= 3);

}
