/* kconv: matches to a fraction of a pixel (kmatch_refine)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Templates cut from a photograph (KCONV_PHOTOS, from tests/photos.sh;
 * without it a smooth made-up scene) at whole pixels; the frame is the
 * photograph moved by a known fraction of a pixel (resampled, bicubic), so
 * the template lies at a known fractional position.  Every method, grey
 * and RGB, the light of the frame changed for ncc (scaled) and zncc
 * (scaled and offset), at four spots with texture across and down (a flat or striped
 * template has no position to refine along some axis), in the middle of
 * the frame and with a search region: the
 * refined position must be within 0.1 pixel of it, and the whole position
 * within a pixel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "photo.h"
#include "kmatch.h"

#define PW 1920
#define PH 1080

/* Catmull-Rom weights for a fraction t of a pixel */
static void
cubic (double t, double w[4])
{
  const double t2 = t * t, t3 = t2 * t;
  w[0] = (-t3 + 2 * t2 - t) / 2;
  w[1] = (3 * t3 - 5 * t2 + 2) / 2;
  w[2] = (-3 * t3 + 4 * t2 + t) / 2;
  w[3] = (t3 - t2) / 2;
}

/* frame(u, v) = photo(x0 + u + fx, y0 + v + fy), w x h, ch channels */
static uint8_t *
moved (const uint8_t * photo, int ch, int x0, int y0, int w, int h, double fx,
    double fy)
{
  uint8_t *f = malloc ((size_t) w * h * ch);
  const int ix = (int) floor (fx), iy = (int) floor (fy);
  double wx[4], wy[4];
  cubic (fx - ix, wx);
  cubic (fy - iy, wy);
  for (int v = 0; v < h; v++)
    for (int u = 0; u < w; u++)
      for (int c = 0; c < ch; c++) {
        double s = 0;
        for (int j = 0; j < 4; j++)
          for (int i = 0; i < 4; i++)
            s += wy[j] * wx[i] * photo[((size_t) (y0 + v + iy + j - 1) * PW +
                    x0 + u + ix + i - 1) * ch + c];
        s = s < 0 ? 0 : s > 255 ? 255 : s;
        f[((size_t) v * w + u) * ch + c] = (uint8_t) lround (s);
      }
  return f;
}

/* a scene of soft blobs, where no photograph is given */
static uint8_t *
made_up (int ch)
{
  double *acc = calloc ((size_t) PW * PH, sizeof *acc);
  srand (7);
  for (int b = 0; b < 3000; b++) {
    const int cx = rand () % PW, cy = rand () % PH, r = 2 + rand () % 8;
    const double v = rand () % 200 - 100;
    for (int y = cy - 3 * r; y <= cy + 3 * r; y++)
      for (int x = cx - 3 * r; x <= cx + 3 * r; x++)
        if (x >= 0 && y >= 0 && x < PW && y < PH)
          acc[(size_t) y * PW + x] += v * exp (-((x - cx) * (x - cx) +
                  (y - cy) * (y - cy)) / (2.0 * r * r));
  }
  uint8_t *p = malloc ((size_t) PW * PH * ch);
  for (size_t i = 0; i < (size_t) PW * PH; i++)
    for (int c = 0; c < ch; c++) {
      const double v = 128 + acc[i] * (1 - 0.2 * c);
      p[i * ch + c] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  free (acc);
  return p;
}

/* Whether the template at (px, py) has gradient across and down, as a
 * tracked feature must: the smaller eigenvalue of its gradient's normal
 * matrix, a pixel, at least 10 (grey levels squared) */
static int
textured (const uint8_t * photo, int ch, int px, int py, int tw, int th)
{
  double xx = 0, xy = 0, yy = 0;
  for (int j = 1; j < th - 1; j++)
    for (int i = 1; i < tw - 1; i++) {
      const uint8_t *q = photo + ((size_t) (py + j) * PW + px + i) * ch;
      const double gx = (q[ch] - q[-ch]) / 2.0;
      const double gy = (q[PW * ch] - q[-PW * ch]) / 2.0;
      xx += gx * gx;
      xy += gx * gy;
      yy += gy * gy;
    }
  const double n = (double) (tw - 2) * (th - 2);
  const double low = (xx + yy) / 2 - sqrt ((xx - yy) * (xx - yy) / 4 + xy * xy);
  return low / n >= 10;
}

int
main (void)
{
  const char *dir = getenv ("KCONV_PHOTOS");
  static const char *methods[] = { "sad", "ssd", "ncc", "zncc" };
  static const double fractions[][2] = {
    {0.25, 0}, {0, 0.5}, {0.5, 0.25}, {-0.3, 0.7}, {0.8, -0.6}, {0.1, 0.1},
    {-0.45, -0.2},
  };
  double worst[4] = { 0 };
  for (int ch = 1; ch <= 3; ch += 2) {
    uint8_t *photo = dir && *dir ? photo_load (dir, "astronaut", PW, PH, ch) :
        NULL;
    if (!photo) {
      printf ("%s: a made-up scene\n", dir ? "no astronaut photograph" :
          "KCONV_PHOTOS not set");
      photo = made_up (ch);
    }
    /* four textured spots, from a grid over the picture */
    int spots[4][2], n_spots = 0;
    for (int y = 100; y < PH - 150 && n_spots < 4; y += 110)
      for (int x = 100; x < PW - 150 && n_spots < 4; x += 130)
        if (textured (photo, ch, x, y, 32, 24)) {
          spots[n_spots][0] = x;
          spots[n_spots++][1] = y;
        }
    CHECK (n_spots == 4, "textured spots: %d", n_spots);
    for (int s = 0; s < n_spots; s++)
      for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++)
        for (int m = 0; m < 4; m++) {
          const int tw = 32, th = 24, fw = 120, fh = 100;
          const int px = spots[s][0], py = spots[s][1];
          const int x0 = px - 40, y0 = py - 30;
          const double fx = fractions[f][0], fy = fractions[f][1];
          uint8_t *frame = moved (photo, ch, x0, y0, fw, fh, fx, fy);
          /* ncc sees the light scaled, zncc scaled and offset: their
           * models of it */
          for (int i = 0; m >= KMATCH_METHOD_NCC && i < fw * fh * ch; i++)
            frame[i] =
                (uint8_t) (m ==
                KMATCH_METHOD_NCC ? (frame[i] * 4 + 2) / 5 : (frame[i] * 7 +
                    5) / 10 + 30);
          uint8_t *t = malloc ((size_t) tw * th * ch);
          for (int j = 0; j < th; j++)
            memcpy (t + (size_t) j * tw * ch, photo + ((size_t) (py + j) * PW +
                    px) * ch, (size_t) tw * ch);
          /* where the template lies in the frame */
          const double ex = px - x0 - fx, ey = py - y0 - fy;
          KMatch *k;
          CHECK (kmatch_new (NULL, &k) == KCONV_OK, "matcher");
          kmatch_set_method (k, (KMatchMethod) m);
          kmatch_set_template (k, t, tw, th, (ptrdiff_t) tw * ch, ch);
          const KConvImage im = { frame, fw, fh, (ptrdiff_t) fw * ch, ch, ch,
            {0, 1, 2}
          };
          const KMatchRegion region = { 10, 5, fw - 20, fh - 15 };
          for (int r = 0; r < 2; r++) {
            const KMatchRegion *where = r ? &region : NULL;
            KMatchPosition p;
            int n;
            CHECK (kmatch_search (k, &im, where, 1, &p, &n, NULL) ==
                KCONV_OK && n == 1, "search");
            CHECK (kmatch_refine (k, &im, 0, where, &p, 1) == KCONV_OK,
                "refine: %s", kconv_last_error ());
            const double err = fmax (fabs (p.sub_x - ex), fabs (p.sub_y - ey));
            worst[m] = fmax (worst[m], err);
            CHECK (err <= 0.1 && fabs (p.x - ex) < 1 && fabs (p.y - ey) < 1,
                "%s, %d channel(s), at (%d, %d) moved by (%.2f, %.2f)%s: "
                "found (%d, %d), refined (%.3f, %.3f), the template lies at "
                "(%.2f, %.2f)", methods[m], ch, px, py, fx, fy,
                r ? " in a region" : "", p.x, p.y, p.sub_x, p.sub_y, ex, ey);
          }
          kmatch_free (k);
          free (frame);
          free (t);
        }
    free (photo);
  }
  for (int m = 0; m < 4; m++)
    printf ("%s: largest error %.3f pixel\n", methods[m], worst[m]);

  /* along an axis without a neighbour (the region's edge) the whole
   * position; a refine with a frame of another kind is refused */
  uint8_t flat[64];
  for (int i = 0; i < 64; i++)
    flat[i] = (uint8_t) (i * 37 % 251);
  KMatch *k;
  kmatch_new (NULL, &k);
  kmatch_set_template (k, flat, 8, 8, 8, 1);
  const KConvImage im = { flat, 8, 8, 8, 1, 1, {0} };
  KMatchPosition p;
  int n;
  CHECK (kmatch_search (k, &im, NULL, 1, &p, &n, NULL) == KCONV_OK
      && kmatch_refine (k, &im, 0, NULL, &p, 1) == KCONV_OK
      && p.sub_x == 0 && p.sub_y == 0, "a template as large as the frame: "
      "(%g, %g)", p.sub_x, p.sub_y);
  const KConvImage rgb = { flat, 2, 2, 6, 3, 3, {0, 1, 2} };
  CHECK (kmatch_refine (k, &rgb, 0, NULL, &p, 1) ==
      KCONV_ERROR_INVALID_ARGUMENT, "an RGB frame for a grey template");
  kmatch_free (k);
  /* frames in device memory want a matcher on the device */
  const KConvOptions cpu = { KCONV_BACKEND_CPU, 1, -1 };
  kmatch_new (&cpu, &k);
  kmatch_set_template (k, flat, 8, 8, 8, 1);
  CHECK (kmatch_refine_device (k, &im, 0, NULL, &p, 1) ==
      KCONV_ERROR_BACKEND_UNAVAILABLE, "a CPU matcher refining in device "
      "memory: %s", kconv_last_error ());
  kmatch_free (k);
  return check_summary ();
}
