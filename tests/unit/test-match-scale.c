/* kconv: templates at other sizes: the scales as text, and the resize
 * against references computed another way (the area average by
 * supersampling, the bilinear value by its textbook formula), on random
 * samples, odd sizes and a photograph
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kmatch.h"
#include "photo.h"
#include "test-rng.h"

static void
expect_scales (const char *text, int n, double first, double last)
{
  double s[KMATCH_MAX_SCALES];
  char err[160] = "";
  int got = kmatch_scales_parse (text, s, err, sizeof err);
  CHECK (got == n && fabs (s[0] - first) < 1e-9 && fabs (s[n - 1] - last)
      < 1e-3, "scales \"%s\": %d (want %d), %g .. %g (%s)", text, got, n,
      got > 0 ? s[0] : 0, got > 0 ? s[got - 1] : 0, err);
  for (int i = 1; i < got; i++)
    CHECK (s[i] > s[i - 1], "scales \"%s\" are not sorted at %d", text, i);
}

static void
expect_refused (const char *text, const char *needle)
{
  double s[KMATCH_MAX_SCALES];
  char err[160] = "";
  int got = kmatch_scales_parse (text, s, err, sizeof err);
  CHECK (got == -1 && strstr (err, needle) != NULL,
      "scales \"%s\" gave %d \"%s\", not \"%s\"", text, got, err, needle);
}

static void
test_parse (void)
{
  expect_scales ("0.5:2:1.1", 15, 0.5, 0.5 * pow (1.1, 14));
  expect_scales ("1", 1, 1, 1);
  expect_scales ("0.5,0.75,1,1.5,2", 5, 0.5, 2);
  expect_scales (" 2 , 1 ,1, 0.5 ", 3, 0.5, 2); /* sorted, once each */
  expect_scales ("1:2:2", 2, 1, 2);     /* max reached exactly */
  expect_scales ("0.25:0.25:1.5", 1, 0.25, 0.25);
  /* the C locale whatever the program's: a comma is never a decimal point */
  setlocale (LC_NUMERIC, "de_DE.UTF-8");
  expect_scales ("0.5,1.5", 2, 0.5, 1.5);
  setlocale (LC_NUMERIC, "C");

  expect_refused ("", "missing");
  expect_refused ("a", "missing");
  expect_refused ("1,,2", "after ','");
  expect_refused ("1,nan", "after ','");
  expect_refused ("1,inf", "after ','");
  expect_refused ("0", "not between");
  expect_refused ("-1", "not between");
  expect_refused ("1000", "not between");
  expect_refused ("0.5:2", "step");
  expect_refused ("0.5:2:1", "larger than 1");
  expect_refused ("0.5:2:0.9", "larger than 1");
  expect_refused ("2:1:1.1", "smaller than min");
  expect_refused ("0.01:100:1.01", "more than 64");
  expect_refused ("1 2", "unexpected");
  expect_refused ("1:2:1.5x", "unexpected");
}

/* The area average by supersampling: every source pixel cut into ow x oh
 * equal parts, every output pixel the sum of the w x h parts it holds,
 * over w h, rounded half up: exact, computed the long way. */
static uint16_t
area_reference (const uint16_t * src, int w, int h, int c, int k, int ow,
    int oh, int ox, int oy)
{
  uint64_t s = 0;
  for (int64_t v = (int64_t) oy * h; v < (int64_t) (oy + 1) * h; v++)
    for (int64_t u = (int64_t) ox * w; u < (int64_t) (ox + 1) * w; u++)
      s += src[((v / oh) * w + u / ow) * c + k];
  uint64_t area = (uint64_t) w * h;
  return (uint16_t) ((2 * s + area) / (2 * area));
}

/* Bilinear by its textbook formula, in exact fractions: the position
 * (o + 1/2) n / m - 1/2 clamped to [0, n - 1], written p / q. */
static uint16_t
bilinear_reference (const uint16_t * src, int w, int h, int c, int k,
    int ow, int oh, int ox, int oy)
{
  __int128 qx = 2 * (__int128) ow, qy = 2 * (__int128) oh;
  __int128 px = (2 * (__int128) ox + 1) * w - ow, py = (2 * (__int128) oy + 1)
      * h - oh;
  if (px < 0)
    px = 0;
  if (px > (w - 1) * qx)
    px = (w - 1) * qx;
  if (py < 0)
    py = 0;
  if (py > (h - 1) * qy)
    py = (h - 1) * qy;
  int x0 = (int) (px / qx), y0 = (int) (py / qy);
  int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
  __int128 fx = px - x0 * qx, fy = py - y0 * qy;        /* in 1/q */
#define AT(x, y) ((__int128) src[((y) * w + (x)) * c + k])
  __int128 v = AT (x0, y0) * (qx - fx) * (qy - fy) + AT (x1, y0) * fx * (qy -
      fy) + AT (x0, y1) * (qx - fx) * fy + AT (x1, y1) * fx * fy;
#undef AT
  /* v / (qx qy), rounded half up */
  return (uint16_t) ((2 * v + qx * qy) / (2 * qx * qy));
}

/* Resizes src (8-bit when max is 255, else 16-bit of one channel) by
 * every scale given and compares every sample with the reference. */
static void
check_resize (const char *what, const uint16_t * src, int w, int h, int c,
    int max, const double *scales, int n)
{
  for (int i = 0; i < n; i++) {
    int ow = 0, oh = 0, bad = 0, first = -1, ew, eh;
    uint16_t *got = NULL;
    kmatch_scaled_size (w, h, scales[i], &ew, &eh);
    if (max == 255) {
      uint8_t *b = malloc ((size_t) w * h * c);
      for (size_t j = 0; j < (size_t) w * h * c; j++)
        b[j] = (uint8_t) src[j];
      uint8_t *out = kmatch_scale_template (b, w, h, c, scales[i], &ow, &oh);
      free (b);
      if (out) {
        got = malloc (sizeof *got * (size_t) ow * oh * c);
        for (size_t j = 0; j < (size_t) ow * oh * c; j++)
          got[j] = out[j];
        free (out);
      }
    } else {
      got = kmatch_scale_template_deep (src, w, h, scales[i], &ow, &oh);
    }
    CHECK (got && ow == ew && oh == eh, "%s x%g: %dx%d, want %dx%d", what,
        scales[i], ow, oh, ew, eh);
    if (!got)
      continue;
    for (int y = 0; y < oh; y++)
      for (int x = 0; x < ow; x++)
        for (int k = 0; k < c; k++) {
          uint16_t want = ow < w || oh < h
              ? area_reference (src, w, h, c, k, ow, oh, x, y)
              : ow == w && oh == h ? src[((size_t) y * w + x) * c + k]
              : bilinear_reference (src, w, h, c, k, ow, oh, x, y);
          if (got[((size_t) y * ow + x) * c + k] != want && bad++ == 0)
            first = (y * ow + x) * c + k;
        }
    CHECK (bad == 0, "%s %dx%d x%g -> %dx%d: %d samples differ from the "
        "reference, the first at %d (%d, want %d)", what, w, h, scales[i], ow,
        oh, bad, first, first >= 0 ? got[first] : 0, first >= 0 ? (int)
        (ow < w ? area_reference (src, w, h, c, first % c, ow, oh,
                first / c % ow, first / c / ow) : 0) : 0);
    free (got);
  }
}

static void
test_resize (void)
{
  static const double scales[] = { 0.1, 0.25, 0.5, 0.55, 0.6, 0.605, 0.8,
    0.9, 1, 1.1, 1.25, 1.5, 1.7, 2, 3.3
  };
  const int n = sizeof scales / sizeof scales[0];
  test_rng_seed (5);
  /* odd sizes, one and three channels, a single row and a single pixel */
  static const int sizes[][3] = { {37, 23, 1}, {64, 64, 1}, {17, 29, 3},
  {1, 1, 1}, {40, 1, 1}, {1, 13, 3}, {250, 9, 1}
  };
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int w = sizes[s][0], h = sizes[s][1], c = sizes[s][2];
    uint16_t *v = malloc (sizeof *v * (size_t) w * h * c);
    for (size_t j = 0; j < (size_t) w * h * c; j++)
      v[j] = (uint16_t) (rnd () % 256);
    check_resize ("random bytes", v, w, h, c, 255, scales, n);
    if (c == 1) {
      for (size_t j = 0; j < (size_t) w * h; j++)
        v[j] = (uint16_t) (rnd () % 65536);
      check_resize ("random 16-bit", v, w, h, 1, 65535, scales, n);
    }
    free (v);
  }

  /* 64x64 pieces of the photographs, grey and RGB (where
   * tests/photos.sh wrote them: KCONV_PHOTOS) */
  static const char *names[] = { "camera", "astronaut", "coffee", "chelsea" };
  const char *dir = getenv ("KCONV_PHOTOS");
  int photos = 0;
  for (int i = 0; dir && i < 4; i++)
    for (int c = 1; c <= 3; c += 2) {
      uint8_t *px = photo_load (dir, names[i], 1920, 1080, c);
      if (!px)
        continue;
      uint16_t *v = malloc (sizeof *v * 64 * 64 * c);
      for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64 * c; x++)
          v[y * 64 * c + x] = px[(size_t) (500 + y) * 1920 * c + 900 * c + x];
      check_resize (names[i], v, 64, 64, c, 255, scales, n);
      free (v);
      free (px);
      photos++;
    }
  printf ("photographs: %d pieces resized%s\n", photos,
      photos ? "" : " (none: KCONV_PHOTOS is not set or holds none)");

  /* exact cases: 2x2 blocks averaged, one value stays itself */
  const uint8_t blocks[16] = { 0, 1, 10, 10, 2, 3, 10, 11, 100, 100, 255, 255,
    100, 101, 255, 254
  };
  int ow, oh;
  uint8_t *half = kmatch_scale_template (blocks, 4, 4, 1, 0.5, &ow, &oh);
  CHECK (half && ow == 2 && oh == 2 && half[0] == 2 && half[1] == 10
      && half[2] == 100 && half[3] == 255, "4x4 at 0.5: %d %d %d %d",
      half ? half[0] : -1, half ? half[1] : -1, half ? half[2] : -1,
      half ? half[3] : -1);
  free (half);
  const uint8_t ramp[2] = { 0, 100 };
  uint8_t *twice = kmatch_scale_template (ramp, 2, 1, 1, 2, &ow, &oh);
  CHECK (twice && ow == 4 && oh == 2 && twice[0] == 0 && twice[1] == 25
      && twice[2] == 75 && twice[3] == 100 && twice[4] == 0,
      "2x1 at 2: %d %d %d %d", twice ? twice[0] : -1, twice ? twice[1] : -1,
      twice ? twice[2] : -1, twice ? twice[3] : -1);
  free (twice);
}

/* Two sizes' matches merged: best first, those overlapping one kept (at
 * their own sizes) dropped, equal scores to the earlier size */
static void
test_merge (void)
{
  KMatchPosition found[2][3] = {
    {{0, 0, 0, 0.1}, {50, 50, 0, 0.3}, {200, 0, 0, 0.2}},
    {{5, 5, 0, 0.05}, {100, 100, 0, 0.2}, {300, 0, 0, 0.2}}
  };
  const int n_found[2] = { 3, 3 }, widths[2] = { 10, 20 }, heights[2] = {
    10, 20
  };
  KMatchPosition out[6];        /* room for the most asked, 6 */
  int size[6];
  int n = kmatch_merge_sizes (&found[0][0], n_found, 3, widths, heights, 2,
      4, out, size);
  CHECK (n == 4 && out[0].x == 5 && size[0] == 1 && out[1].x == 200
      && size[1] == 0 && out[2].x == 300 && size[2] == 1 && out[3].x == 100
      && size[3] == 1, "merged: %d: %d/%d %d/%d %d/%d %d/%d", n, out[0].x,
      size[0], out[1].x, size[1], out[2].x, size[2], out[3].x, size[3]);
  n = kmatch_merge_sizes (&found[0][0], n_found, 3, widths, heights, 2, 1,
      out, size);
  CHECK (n == 1 && out[0].x == 5 && size[0] == 1, "the best: %d at %d", n,
      out[0].x);
  /* (0,0) at 10x10 lies inside (5,5) at 20x20: dropped however many asked */
  n = kmatch_merge_sizes (&found[0][0], n_found, 3, widths, heights, 2, 6,
      out, size);
  CHECK (n == 5, "all that do not overlap: %d, want 5", n);
}

int
main (void)
{
  test_parse ();
  test_resize ();
  test_merge ();
  return check_summary ();
}
