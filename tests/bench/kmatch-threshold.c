/* kconv: what kpatternmatch's default threshold rests on
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The best score (a distance, 0 .. 1: for sad SAD / (255 * template
 * pixels); kmatch.h) of templates cut from natural photographs
 * (tests/photos.sh; 1920x1080 grey), searched by a method
 *   - in the same photograph with Gaussian noise of sigma 8 and the
 *     brightness raised by 10 (the template is there: it must be found),
 *   - in the three other photographs and in snow (uniform noise): it is
 *     not there, it must not be found.
 * Templates of 32, 64 and 128 pixels, at positions drawn at random among
 * those with some texture (standard deviation of at least 8 grey levels:
 * a flat patch matches any flat region, by any SAD).  Prints each case's
 * scores and the gap between the worst "found" and the best "absent".
 *   kmatch-threshold PHOTO_DIR [positions per photo and size, default 6]
 *                    [method: sad (default), ssd, ncc, zncc]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconv.h"
#include "kmatch.h"
#include "photo.h"
#include "test-rng.h"

#define W 1920
#define H 1080
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static const char *names[] = { "camera", "astronaut", "coffee", "chelsea" };

enum
{ N_PHOTOS = 4 };

/* a standard normal sample (Box-Muller) */
static double
gauss (void)
{
  double u = (rnd () + 1.0) / 16777217.0, v = (rnd () + 1.0) / 16777217.0;
  return sqrt (-2 * log (u)) * cos (2 * M_PI * v);
}

static double
patch_std (const uint8_t * im, int x, int y, int t)
{
  double s = 0, s2 = 0;
  for (int j = 0; j < t; j++)
    for (int i = 0; i < t; i++) {
      double v = im[(y + j) * W + x + i];
      s += v;
      s2 += v * v;
    }
  double n = (double) t * t, m = s / n;
  return sqrt (s2 / n - m * m);
}

/* the best score of the template in frame, and where */
static double
best_score (KMatch * m, const uint8_t * frame, int t, int *bx, int *by)
{
  KConvImage im = { (uint8_t *) frame, W, H, W, 1, 1, {0} };
  KMatchPosition best;
  int n = 0;
  if (kmatch_search (m, &im, NULL, 1, &best, &n, NULL) != KCONV_OK || n < 1) {
    fprintf (stderr, "search failed\n");
    exit (1);
  }
  *bx = best.x;
  *by = best.y;
  (void) t;
  return best.score;
}

int
main (int argc, char **argv)
{
  if (argc < 2) {
    fprintf (stderr, "usage: %s PHOTO_DIR [positions] [method]\n", argv[0]);
    return 2;
  }
  int per = argc > 2 ? atoi (argv[2]) : 6;
  KMatchMethod method = KMATCH_METHOD_SAD;
  while (argc > 3 && kmatch_method_name (method)
      && strcmp (kmatch_method_name (method), argv[3]))
    method++;
  if (!kmatch_method_name (method)) {
    fprintf (stderr, "unknown method %s\n", argv[3]);
    return 2;
  }
  uint8_t *photo[N_PHOTOS], *noisy[N_PHOTOS];
  uint8_t *snow = malloc ((size_t) W * H);
  test_rng_seed (20261126);
  for (int p = 0; p < N_PHOTOS; p++) {
    photo[p] = photo_load (argv[1], names[p], W, H, 1);
    if (!photo[p]) {
      fprintf (stderr, "no %s-%dx%d.pgm in %s (tests/photos.sh)\n", names[p],
          W, H, argv[1]);
      return 1;
    }
    noisy[p] = malloc ((size_t) W * H);
    for (size_t i = 0; i < (size_t) W * H; i++) {
      long v = lround (photo[p][i] + 10 + 8 * gauss ());
      noisy[p][i] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
    }
  }
  for (size_t i = 0; i < (size_t) W * H; i++)
    snow[i] = rnd () & 255;

  KConvOptions opt = { KCONV_BACKEND_AUTO, 0, -1 };
  KMatch *m = NULL;
  if (kmatch_new (&opt, &m) != KCONV_OK
      || kmatch_set_method (m, method) != KCONV_OK)
    return 1;
  printf ("backend %s; method %s; score as kmatch.h defines it\n",
      kconv_backend_name (kmatch_backend (m)), kmatch_method_name (method));
  printf ("%-10s %5s %11s %6s %8s %6s %10s %10s\n", "photo", "size",
      "position", "std", "found", "off", "other", "snow");
  double worst_found = 0, best_absent = 1;
  int misplaced = 0;
  static const int sizes[] = { 32, 64, 128 };
  for (int p = 0; p < N_PHOTOS; p++)
    for (int s = 0; s < 3; s++)
      for (int k = 0; k < per; k++) {
        int t = sizes[s], x, y, tries = 0;
        do {
          x = rnd_range (0, W - t);
          y = rnd_range (0, H - t);
        } while (patch_std (photo[p], x, y, t) < 8 && ++tries < 1000);
        uint8_t *tpl = malloc ((size_t) t * t);
        for (int j = 0; j < t; j++)
          memcpy (tpl + j * t, photo[p] + (y + j) * W + x, t);
        kmatch_set_template (m, tpl, t, t, t, 1);
        int bx, by;
        double found = best_score (m, noisy[p], t, &bx, &by);
        int off = MAX (abs (bx - x), abs (by - y));
        misplaced += off > 1;
        double other = 1;
        for (int q = 0; q < N_PHOTOS; q++)
          if (q != p)
            other = fmin (other, best_score (m, photo[q], t, &bx, &by));
        double sn = best_score (m, snow, t, &bx, &by);
        printf ("%-10s %5d %5d,%-5d %6.1f %8.4f %6d %10.4f %10.4f\n",
            names[p], t, x, y, patch_std (photo[p], x, y, t), found, off,
            other, sn);
        worst_found = fmax (worst_found, found);
        best_absent = fmin (best_absent, fmin (other, sn));
        free (tpl);
      }
  printf ("\nworst score where the template is (noise 8, brightness +10): "
      "%.4f\nbest score where it is not (other photographs, snow): %.4f\n"
      "found more than a pixel from where it was: %d\n", worst_found,
      best_absent, misplaced);
  kmatch_free (m);
  for (int p = 0; p < N_PHOTOS; p++) {
    free (photo[p]);
    free (noisy[p]);
  }
  free (snow);
  return 0;
}
