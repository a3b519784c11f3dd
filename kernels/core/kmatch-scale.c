/* kconv: templates at other sizes: the scales as text, the resize, and
 * the matches of the sizes merged
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"
#include "kconv-matrix.h"

static const char *
skip_blanks (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* A factor at p, into *v; the text after it in *end.  0, or -1 and a
 * sentence naming `what`. */
static int
parse_factor (const char *p, const char *what, double *v, const char **end,
    char *err, size_t err_size)
{
  char *after;
  p = skip_blanks (p);
  *v = kconv_strtod_c (p, &after);
  if (after == p || !isfinite (*v)) {
    snprintf (err, err_size, "%s is missing or not a number", what);
    return -1;
  }
  *end = skip_blanks (after);
  return 0;
}

static int
in_range (double v, const char *what, char *err, size_t err_size)
{
  if (v >= KMATCH_MIN_SCALE && v <= KMATCH_MAX_SCALE)
    return 1;
  snprintf (err, err_size, "%s %g is not between %g and %g", what, v,
      KMATCH_MIN_SCALE, KMATCH_MAX_SCALE);
  return 0;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
kmatch_scales_parse (const char *text, double *scales, char *err,
    size_t err_size)
{
  const char *p = text ? text : "";
  double first;
  int n = 0;

  if (parse_factor (p, "the first factor", &first, &p, err, err_size) < 0
      || !in_range (first, "the factor", err, err_size))
    return -1;
  if (*p == ':') {
    double max, step;
    if (parse_factor (p + 1, "max (\"min:max:step\")", &max, &p, err,
            err_size) < 0 || !in_range (max, "max", err, err_size))
      return -1;
    if (*p != ':') {
      snprintf (err, err_size, "a ':' and the step must follow max "
          "(\"min:max:step\")");
      return -1;
    }
    if (parse_factor (p + 1, "the step (\"min:max:step\")", &step, &p, err,
            err_size) < 0)
      return -1;
    if (*p != '\0') {
      snprintf (err, err_size, "unexpected text after the step");
      return -1;
    }
    if (max < first) {
      snprintf (err, err_size, "max %g is smaller than min %g", max, first);
      return -1;
    }
    if (!(step > 1.0)) {
      snprintf (err, err_size, "the step %g must be larger than 1", step);
      return -1;
    }
    /* min * step^k, a hair of slack so that 1:2:2 reaches 2 */
    for (double v = first; v <= max * (1 + 1e-9); v *= step) {
      if (n == KMATCH_MAX_SCALES) {
        snprintf (err, err_size, "more than %d factors from %g to %g in "
            "steps of %g", KMATCH_MAX_SCALES, first, max, step);
        return -1;
      }
      scales[n++] = v;
    }
    return n;
  }

  scales[n++] = first;
  while (*p == ',') {
    double v;
    if (n == KMATCH_MAX_SCALES) {
      snprintf (err, err_size, "more than %d factors", KMATCH_MAX_SCALES);
      return -1;
    }
    if (parse_factor (p + 1, "a factor after ','", &v, &p, err, err_size) < 0
        || !in_range (v, "the factor", err, err_size))
      return -1;
    scales[n++] = v;
  }
  if (*p != '\0') {
    snprintf (err, err_size, "unexpected text after the factors (\"a,b,c\" "
        "or \"min:max:step\")");
    return -1;
  }
  qsort (scales, n, sizeof *scales, compare_doubles);
  int kept = 1;
  for (int i = 1; i < n; i++)
    if (scales[i] != scales[kept - 1])
      scales[kept++] = scales[i];
  return kept;
}

void
kmatch_scaled_size (int w, int h, double scale, int *out_w, int *out_h)
{
  double sw = floor (w * scale + 0.5), sh = floor (h * scale + 0.5);
  *out_w = sw < 1 ? 1 : sw > KMATCH_MAX_COORD ? KMATCH_MAX_COORD : (int) sw;
  *out_h = sh < 1 ? 1 : sh > KMATCH_MAX_COORD ? KMATCH_MAX_COORD : (int) sh;
}

/* How much of source pixel i (of n) the output pixel o (of m) covers, in
 * units of 1/m of a source pixel: pixel i spans [i m, (i + 1) m), output
 * o spans [o n, (o + 1) n).  The weights of one output sum to n. */
static int64_t
overlap (int64_t i, int64_t o, int64_t n, int64_t m)
{
  int64_t lo = i * m > o * n ? i * m : o * n;
  int64_t hi = (i + 1) * m < (o + 1) * n ? (i + 1) * m : (o + 1) * n;
  return hi > lo ? hi - lo : 0;
}

/* Area averaging, ow <= w and oh <= h: rows first (each source row's
 * weighted sums, exact in 64 bits), then columns, one rounding. */
static int
shrink (const uint16_t * src, int w, int h, int c, uint16_t * dst, int ow,
    int oh)
{
  uint64_t *rows = malloc (sizeof *rows * (size_t) ow * c * h);
  if (!rows)
    return -1;
  for (int y = 0; y < h; y++)
    for (int ox = 0; ox < ow; ox++) {
      /* the source pixels output ox covers: [ox w / ow, (ox + 1) w / ow) */
      int x0 = (int) ((int64_t) ox * w / ow);
      int x1 = (int) (((int64_t) (ox + 1) * w + ow - 1) / ow);
      for (int k = 0; k < c; k++) {
        uint64_t s = 0;
        for (int x = x0; x < x1; x++)
          s += (uint64_t) overlap (x, ox, w, ow) * src[((size_t) y * w + x) *
              c + k];
        rows[((size_t) y * ow + ox) * c + k] = s;
      }
    }
  const uint64_t area = (uint64_t) w * h;
  for (int oy = 0; oy < oh; oy++) {
    int y0 = (int) ((int64_t) oy * h / oh);
    int y1 = (int) (((int64_t) (oy + 1) * h + oh - 1) / oh);
    for (int i = 0; i < ow * c; i++) {
      uint64_t s = 0;
      for (int y = y0; y < y1; y++)
        s += (uint64_t) overlap (y, oy, h, oh) * rows[(size_t) y * ow * c + i];
      /* the mean is s / (w h); rounded half up */
      dst[(size_t) oy * ow * c + i] = (uint16_t) ((2 * s + area) / (2 * area));
    }
  }
  free (rows);
  return 0;
}

/* Where output o of m samples from n, centres aligned and clamped: the
 * source position is ((2 o + 1) n - m) / (2 m), i0 and the remainder r (in
 * units of 1 / (2 m)) of it, i1 the next sample (the same at the edge). */
static void
source_of (int o, int n, int m, int *i0, int *i1, int64_t * r)
{
  int64_t num = (2 * (int64_t) o + 1) * n - m;
  if (num < 0) {
    *i0 = 0;
    *r = 0;
  } else {
    *i0 = (int) (num / (2 * (int64_t) m));
    *r = num % (2 * (int64_t) m);
    if (*i0 >= n - 1) {
      *i0 = n - 1;
      *r = 0;
    }
  }
  *i1 = *i0 + 1 < n ? *i0 + 1 : n - 1;
}

/* Bilinear, ow >= w and oh >= h, exactly: the weights are multiples of
 * 1 / (4 ow oh), the sum is an integer in those units, rounded once. */
static void
grow (const uint16_t * src, int w, int h, int c, uint16_t * dst, int ow, int oh)
{
  const uint64_t dx = 2 * (uint64_t) ow, dy = 2 * (uint64_t) oh;
  const uint64_t den = dx * dy;
  for (int oy = 0; oy < oh; oy++) {
    int y0, y1;
    int64_t ry;
    source_of (oy, h, oh, &y0, &y1, &ry);
    for (int ox = 0; ox < ow; ox++) {
      int x0, x1;
      int64_t rx;
      source_of (ox, w, ow, &x0, &x1, &rx);
      const uint64_t w00 = (dx - rx) * (dy - ry), w01 = rx * (dy - ry);
      const uint64_t w10 = (dx - rx) * ry, w11 = (uint64_t) rx *ry;
      for (int k = 0; k < c; k++) {
        uint64_t s = w00 * src[((size_t) y0 * w + x0) * c + k]
            + w01 * src[((size_t) y0 * w + x1) * c + k]
            + w10 * src[((size_t) y1 * w + x0) * c + k]
            + w11 * src[((size_t) y1 * w + x1) * c + k];
        dst[((size_t) oy * ow + ox) * c + k] = (uint16_t) ((2 * s + den) /
            (2 * den));
      }
    }
  }
}

/* Either way, on 16-bit samples: NULL when memory is short. */
static uint16_t *
scale_words (const uint16_t * src, int w, int h, int c, double scale,
    int *out_w, int *out_h)
{
  int ow, oh;
  kmatch_scaled_size (w, h, scale, &ow, &oh);
  uint16_t *dst = malloc (sizeof *dst * (size_t) ow * oh * c);
  if (!dst)
    return NULL;
  if (ow == w && oh == h)
    memcpy (dst, src, sizeof *dst * (size_t) w * h * c);
  else if (ow <= w && oh <= h) {
    if (shrink (src, w, h, c, dst, ow, oh) < 0) {
      free (dst);
      return NULL;
    }
  } else
    /* a factor above 1 never rounds a side below its size */
    grow (src, w, h, c, dst, ow, oh);
  *out_w = ow;
  *out_h = oh;
  return dst;
}

uint16_t *
kmatch_scale_template_deep (const uint16_t * values, int w, int h,
    double scale, int *out_w, int *out_h)
{
  return scale_words (values, w, h, 1, scale, out_w, out_h);
}

uint8_t *
kmatch_scale_template (const uint8_t * samples, int w, int h, int channels,
    double scale, int *out_w, int *out_h)
{
  size_t n = (size_t) w * h * channels;
  uint16_t *words = malloc (sizeof *words * n);
  if (!words)
    return NULL;
  for (size_t i = 0; i < n; i++)
    words[i] = samples[i];
  int ow, oh;
  uint16_t *scaled = scale_words (words, w, h, channels, scale, &ow, &oh);
  free (words);
  uint8_t *out = scaled ? malloc ((size_t) ow * oh * channels) : NULL;
  if (out) {
    for (size_t i = 0; i < (size_t) ow * oh * channels; i++)
      out[i] = (uint8_t) scaled[i];
    *out_w = ow;
    *out_h = oh;
  }
  free (scaled);
  return out;
}

typedef struct
{
  KMatchPosition p;
  int size;
} Candidate;

static int
compare_candidates (const void *a, const void *b)
{
  const Candidate *x = a, *y = b;
  if (x->p.score != y->p.score)
    return x->p.score < y->p.score ? -1 : 1;
  if (x->size != y->size)
    return x->size - y->size;
  if (x->p.y != y->p.y)
    return x->p.y - y->p.y;
  return x->p.x - y->p.x;
}

static int
boxes_overlap (const Candidate * a, const Candidate * b, const int *widths,
    const int *heights)
{
  return a->p.x < b->p.x + widths[b->size] && b->p.x < a->p.x + widths[a->size]
      && a->p.y < b->p.y + heights[b->size]
      && b->p.y < a->p.y + heights[a->size];
}

int
kmatch_merge_sizes (const KMatchPosition * found, const int *n_found,
    int stride, const int *widths, const int *heights, int n_sizes, int max,
    KMatchPosition * out, int *out_size)
{
  size_t total = 0;
  for (int s = 0; s < n_sizes; s++)
    total += (size_t) n_found[s];
  if (total == 0 || max <= 0)
    return 0;
  Candidate *all = malloc (total * sizeof *all);
  if (!all)
    return 0;
  size_t k = 0;
  for (int s = 0; s < n_sizes; s++)
    for (int i = 0; i < n_found[s]; i++) {
      all[k].p = found[(size_t) s * stride + i];
      all[k++].size = s;
    }
  qsort (all, total, sizeof *all, compare_candidates);
  int n = 0;
  Candidate *kept = malloc ((size_t) max * sizeof *kept);
  for (size_t i = 0; kept && i < total && n < max; i++) {
    int free_spot = 1;
    for (int j = 0; j < n && free_spot; j++)
      free_spot = !boxes_overlap (&all[i], &kept[j], widths, heights);
    if (!free_spot)
      continue;
    kept[n] = all[i];
    out[n] = all[i].p;
    out_size[n++] = all[i].size;
  }
  free (kept);
  free (all);
  return n;
}
