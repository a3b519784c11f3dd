/* kconv: rectangles of an image: as text, and the area a set of them
 * covers as disjoint rectangles
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kmatch.h"

int
kconv_rects_parse (const char *text, KConvRect * rects, int max, char *err,
    size_t err_size)
{
  const char *p = text ? text : "";
  int n = 0;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return 0;
  for (;;) {
    const char *end = strchr (p, ';');
    const size_t len = end ? (size_t) (end - p) : strlen (p);
    char one[96], why[128];
    KMatchRegion r;
    if (n == max) {
      snprintf (err, err_size, "more than %d rectangles", max);
      return -1;
    }
    if (len >= sizeof one) {
      snprintf (err, err_size, "rectangle %d is too long", n + 1);
      return -1;
    }
    memcpy (one, p, len);
    one[len] = '\0';
    if (kmatch_region_parse (one, &r, why, sizeof why) != 0) {
      snprintf (err, err_size, "rectangle %d: %s", n + 1, why);
      return -1;
    }
    rects[n++] = (KConvRect) {
    r.x, r.y, r.width, r.height};
    if (!end)
      return n;
    p = end + 1;
  }
}

typedef struct
{
  int x0, x1;
} Span;

static int
compare_ints (const void *a, const void *b)
{
  const int x = *(const int *) a, y = *(const int *) b;
  return x < y ? -1 : x > y;
}

static int
compare_spans (const void *a, const void *b)
{
  return compare_ints (&((const Span *) a)->x0, &((const Span *) b)->x0);
}

static long long
clamp_ll (long long v, long long lo, long long hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The spans of band [ya, yb) the boxes cover (or, outside, leave),
 * sorted, merged where they meet; their number */
static int
band_spans (const KConvRect * box, int n, int ya, int yb, int width,
    int outside, Span * spans)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (box[i].y <= ya && box[i].y + box[i].height >= yb)
      spans[k++] = (Span) {
      box[i].x, box[i].x + box[i].width};
  qsort (spans, k, sizeof *spans, compare_spans);
  int m = 0;
  for (int i = 0; i < k; i++) {
    if (m > 0 && spans[i].x0 <= spans[m - 1].x1) {
      if (spans[i].x1 > spans[m - 1].x1)
        spans[m - 1].x1 = spans[i].x1;
    } else {
      spans[m++] = spans[i];
    }
  }
  if (!outside)
    return m;
  /* the gaps between them, from 0 to width */
  int g = 0, at = 0;
  Span gaps[m + 1];
  for (int i = 0; i < m; i++) {
    if (spans[i].x0 > at)
      gaps[g++] = (Span) {
      at, spans[i].x0};
    at = spans[i].x1;
  }
  if (at < width)
    gaps[g++] = (Span) {
    at, width};
  memcpy (spans, gaps, sizeof *gaps * g);
  return g;
}

int
kconv_rects_cover (const KConvRect * rects, int n, int margin, int width,
    int height, int outside, KConvRect ** out)
{
  *out = NULL;
  if (width <= 0 || height <= 0)
    return 0;
  KConvRect *box = malloc (sizeof *box * (n > 0 ? n : 1));
  int *ys = malloc (sizeof *ys * (2 * (size_t) n + 2));
  Span *spans = malloc (sizeof *spans * (2 * (size_t) n + 2));
  Span *open = malloc (sizeof *open * (2 * (size_t) n + 2));
  int *open_at = malloc (sizeof *open_at * (2 * (size_t) n + 2));
  size_t cap = 16;
  int count = 0, n_box = 0, n_ys = 0, n_open = 0;
  KConvRect *res = malloc (sizeof *res * cap);
  if (!box || !ys || !spans || !open || !open_at || !res)
    goto fail;
  /* grown and clipped (in 64 bits: a margin may be as large as an int) */
  for (int i = 0; i < n; i++) {
    const long long x0 = clamp_ll ((long long) rects[i].x - margin, 0, width);
    const long long y0 = clamp_ll ((long long) rects[i].y - margin, 0, height);
    const long long x1 = clamp_ll ((long long) rects[i].x + rects[i].width +
        margin, 0, width);
    const long long y1 = clamp_ll ((long long) rects[i].y + rects[i].height +
        margin, 0, height);
    if (rects[i].width <= 0 || rects[i].height <= 0 || x1 <= x0 || y1 <= y0)
      continue;
    box[n_box++] = (KConvRect) {
    (int) x0, (int) y0, (int) (x1 - x0), (int) (y1 - y0)};
    ys[n_ys++] = (int) y0;
    ys[n_ys++] = (int) y1;
  }
  ys[n_ys++] = 0;
  ys[n_ys++] = height;
  qsort (ys, n_ys, sizeof *ys, compare_ints);
  /* band by band; a span the band before had too grows down instead of
   * starting a rectangle */
  for (int b = 0; b + 1 < n_ys; b++) {
    const int ya = ys[b], yb = ys[b + 1];
    if (ya == yb)
      continue;
    const int m = band_spans (box, n_box, ya, yb, width, outside, spans);
    int same = m == n_open;
    for (int i = 0; same && i < m; i++)
      same = spans[i].x0 == open[i].x0 && spans[i].x1 == open[i].x1;
    if (same) {
      for (int i = 0; i < m; i++)
        res[open_at[i]].height = yb - res[open_at[i]].y;
      continue;
    }
    for (int i = 0; i < m; i++) {
      if ((size_t) count == cap) {
        KConvRect *grown = realloc (res, sizeof *res * cap * 2);
        if (!grown)
          goto fail;
        res = grown;
        cap *= 2;
      }
      open[i] = spans[i];
      open_at[i] = count;
      res[count++] = (KConvRect) {
      spans[i].x0, ya, spans[i].x1 - spans[i].x0, yb - ya};
    }
    n_open = m;
  }
  free (box);
  free (ys);
  free (spans);
  free (open);
  free (open_at);
  if (count == 0)
    free (res);
  else
    *out = res;
  return count;
fail:
  free (box);
  free (ys);
  free (spans);
  free (open);
  free (open_at);
  free (res);
  return -1;
}
