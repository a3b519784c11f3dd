/* kconv: a template found at another size, on photographs
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * From each of the four photographs (KCONV_PHOTOS, from tests/photos.sh)
 * a 400x300 piece is the picture; a 64x64 template is cut from it and the
 * picture resized by 0.6, 0.8, 1.25 and 1.7 (area average and bilinear,
 * kmatch_scale_template).  The template is searched at the 15 sizes of
 * "0.5:2:1.1" by zncc, in one pass (kmatch_search_many), and the sizes'
 * best merged (kmatch_merge_sizes), as kpatternmatch does: the size found
 * must be the scale of the list nearest the resize, the position within
 * a pixel of where the template lies at that size (that size is a few
 * percent off the resize: anywhere from the corners aligned to the
 * centres aligned, within a pixel, is where it lies).  The
 * scalar reference, over every scaled template in a window round each
 * size's best, finds the same positions and scores, to the bit.  CPU,
 * and CUDA where there is one.  Skipped (77) where KCONV_PHOTOS is not
 * set (a build from the release tarball).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kmatch.h"
#include "photo.h"

#define PW 400
#define PH 300
#define T 64
#define WINDOW 8

static const double resizes[] = { 0.6, 0.8, 1.25, 1.7 };

typedef struct
{
  double scales[KMATCH_MAX_SCALES];
  int n, widths[KMATCH_MAX_SCALES], heights[KMATCH_MAX_SCALES];
  uint8_t *templates[KMATCH_MAX_SCALES];
} Sizes;

static void
sizes_make (Sizes * s, const uint8_t * tpl)
{
  char err[128] = "";
  s->n = kmatch_scales_parse ("0.5:2:1.1", s->scales, err, sizeof err);
  CHECK (s->n == 15, "0.5:2:1.1 gave %d scales (%s)", s->n, err);
  for (int i = 0; i < s->n; i++)
    s->templates[i] = kmatch_scale_template (tpl, T, T, 1, s->scales[i],
        &s->widths[i], &s->heights[i]);
}

static void
sizes_free (Sizes * s)
{
  for (int i = 0; i < s->n; i++)
    free (s->templates[i]);
}

static KMatch *
matcher (KConvBackend backend, const Sizes * s, int i)
{
  const KConvOptions opt = { backend, 0, -1 };
  KMatch *m = NULL;
  if (kmatch_new (&opt, &m) != KCONV_OK
      || kmatch_set_template (m, s->templates[i], s->widths[i], s->heights[i],
          s->widths[i], 1) != KCONV_OK
      || kmatch_set_method (m, KMATCH_METHOD_ZNCC) != KCONV_OK) {
    kmatch_free (m);
    return NULL;
  }
  return m;
}

/* The best of every size over the whole picture, in one pass, and the
 * merged best; FALSE when the backend failed. */
static int
search_sizes (KConvBackend backend, const Sizes * s, const KConvImage * im,
    KMatchPosition * per_size, KMatchPosition * best, int *best_size)
{
  KMatch *ms[KMATCH_MAX_SCALES];
  KMatchRegion regions[KMATCH_MAX_SCALES];
  int found[KMATCH_MAX_SCALES], ok = 1;
  for (int i = 0; i < s->n; i++) {
    ms[i] = matcher (backend, s, i);
    ok = ok && ms[i];
    regions[i] = (KMatchRegion) {
    0, 0, im->width, im->height};
  }
  ok = ok && kmatch_search_many (ms, s->n, im, 0, 0, regions, 1, per_size,
      found) == KCONV_OK;
  for (int i = 0; ok && i < s->n; i++)
    ok = found[i] == 1;
  ok = ok && kmatch_merge_sizes (per_size, found, 1, s->widths, s->heights,
      s->n, 1, best, best_size) == 1;
  for (int i = 0; i < s->n; i++)
    kmatch_free (ms[i]);
  return ok;
}

static int
nearest_scale (const Sizes * s, double f)
{
  int k = 0;
  for (int i = 1; i < s->n; i++)
    if (fabs (s->scales[i] - f) < fabs (s->scales[k] - f))
      k = i;
  return k;
}

#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define MAX2(a, b) ((a) > (b) ? (a) : (b))

/* v within a pixel of the span between a and b */
static int
within (int v, double a, double b)
{
  return v >= MIN2 (a, b) - 1 && v <= MAX2 (a, b) + 1;
}

/* Where the template is cut: the 64x64 window of the piece, on a grid of
 * 16, with the most structure in both directions (the smaller eigenvalue
 * of its gradients' structure tensor, Shi and Tomasi's measure): a corner,
 * not a flat wall or stripes that slide along themselves */
static void
template_spot (const uint8_t * piece, int *tx, int *ty)
{
  double most = -1;
  for (int y = 16; y + T <= PH - 16; y += 16)
    for (int x = 16; x + T <= PW - 16; x += 16) {
      double xx = 0, yy = 0, xy = 0;
      for (int j = 0; j < T; j++)
        for (int i = 0; i < T; i++) {
          const uint8_t *p = piece + (y + j) * PW + x + i;
          const double gx = (double) p[1] - p[-1], gy = (double) p[PW] - p[-PW];
          xx += gx * gx;
          yy += gy * gy;
          xy += gx * gy;
        }
      const double least = (xx + yy) / 2 - sqrt ((xx - yy) * (xx - yy) / 4
          + xy * xy);
      if (least > most) {
        most = least;
        *tx = x;
        *ty = y;
      }
    }
}

static void
check_photo (const char *name, const uint8_t * grey, KConvBackend backend)
{
  const char *bname = kconv_backend_info (backend)->name;
  /* the piece: the middle of the 1920x1080 photograph */
  uint8_t *piece = malloc (PW * PH);
  for (int y = 0; y < PH; y++)
    memcpy (piece + y * PW, grey + (size_t) (390 + y) * 1920 + 760, PW);
  int tx = 0, ty = 0;
  template_spot (piece, &tx, &ty);
  uint8_t tpl[T * T];
  for (int y = 0; y < T; y++)
    memcpy (tpl + y * T, piece + (ty + y) * PW + tx, T);
  Sizes s;
  sizes_make (&s, tpl);

  for (size_t r = 0; r < sizeof resizes / sizeof resizes[0]; r++) {
    const double f = resizes[r];
    int w, h;
    uint8_t *pic = kmatch_scale_template (piece, PW, PH, 1, f, &w, &h);
    const KConvImage im = { pic, w, h, w, 1, 1, {0} };
    KMatchPosition per[KMATCH_MAX_SCALES], best;
    int at = -1;
    if (!search_sizes (backend, &s, &im, per, &best, &at)) {
      CHECK (0, "%s %s x%g: the search failed: %s", bname, name, f,
          kconv_last_error ());
      free (pic);
      continue;
    }
    /* where the template lies at the size found: from the corners
     * aligned to the centres aligned */
    const double corner_x = tx * f, corner_y = ty * f;
    const double centre_x = (tx + T / 2.0) * f - s.widths[at] / 2.0;
    const double centre_y = (ty + T / 2.0) * f - s.heights[at] / 2.0;
    const int want = nearest_scale (&s, f);
    REPORT (at == want && within (best.x, corner_x, centre_x)
        && within (best.y, corner_y, centre_y), "%s %s x%g: scale %g (want "
        "%g), %d,%d (want %.1f..%.1f, %.1f..%.1f), zncc %.4f", bname, name, f,
        s.scales[at], s.scales[want], best.x, best.y, MIN2 (corner_x,
            centre_x), MAX2 (corner_x, centre_x), MIN2 (corner_y, centre_y),
        MAX2 (corner_y, centre_y), best.correlation);

    /* the reference over each size, round that size's best */
    int agree = 0;
    for (int i = 0; i < s.n; i++) {
      KMatch *ref = matcher (KCONV_BACKEND_REFERENCE, &s, i);
      KMatchRegion win = { per[i].x - WINDOW, per[i].y - WINDOW,
        s.widths[i] + 2 * WINDOW, s.heights[i] + 2 * WINDOW
      };
      win.x = win.x < 0 ? 0 : win.x;
      win.y = win.y < 0 ? 0 : win.y;
      win = kmatch_region_clip (win, w, h);
      KMatchPosition p;
      int n = 0;
      if (ref && kmatch_search (ref, &im, &win, 1, &p, &n, NULL) == KCONV_OK
          && n == 1 && p.x == per[i].x && p.y == per[i].y
          && p.score == per[i].score && p.correlation == per[i].correlation)
        agree++;
      else
        CHECK (0, "%s %s x%g scale %g: %d,%d %.17g, the reference %d,%d "
            "%.17g", bname, name, f, s.scales[i], per[i].x, per[i].y,
            per[i].score, n ? p.x : -1, n ? p.y : -1, n ? p.score : -1.0);
      kmatch_free (ref);
    }
    CHECK (agree == s.n, "%s %s x%g: %d of %d sizes as the reference", bname,
        name, f, agree, s.n);
    free (pic);
  }
  sizes_free (&s);
  free (piece);
}

int
main (void)
{
  static const char *names[] = { "camera", "astronaut", "coffee", "chelsea" };
  const char *dir = getenv ("KCONV_PHOTOS");
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  int photos = 0;
  for (int i = 0; dir && i < 4; i++) {
    uint8_t *grey = photo_load (dir, names[i], 1920, 1080, 1);
    if (!grey)
      continue;
    photos++;
    for (int b = 0; b < 2; b++)
      if (kconv_backend_available (backends[b]))
        check_photo (names[i], grey, backends[b]);
    free (grey);
  }
  if (!dir) {
    printf ("no photographs (KCONV_PHOTOS is not set): skipped\n");
    return 77;
  }
  CHECK (photos == 4, "%d of the 4 photographs in KCONV_PHOTOS=%s", photos,
      dir);
  return check_summary ();
}
