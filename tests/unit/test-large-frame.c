/* kconv: the largest kernel on a large frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An 8192x8192 grey frame through a 121x121 exact kernel on the CPU (the
 * FFT path where FFTW is built in): the corners, the middles of the edges
 * and random pixels inside against a one-pixel scalar sum by kconv.h's
 * rule (replicated border).  Slow: a test of its own, in the core suite.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "test-rng.h"
#include "kconv.h"

#define N 8192
#define K 121

static int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* out = clamp (floor (s / d + offset + 1/2)), in integers */
static uint8_t
expected (const uint8_t * f, const int *w, int d, int offset, int x, int y)
{
  int64_t s = 0;
  for (int j = 0; j < K; j++) {
    const uint8_t *row = f + (size_t) clampi (y - K / 2 + j, 0, N - 1) * N;
    for (int i = 0; i < K; i++)
      s += (int64_t) w[j * K + i] * row[clampi (x - K / 2 + i, 0, N - 1)];
  }
  const int64_t num = 2 * s + (int64_t) d * (2 * offset + 1), den = 2 * d;
  int64_t q = num / den - (num % den < 0);
  return (uint8_t) (q < 0 ? 0 : q > 255 ? 255 : q);
}

int
main (void)
{
  test_rng_seed (8192);
  uint8_t *src = malloc ((size_t) N * N), *dst = malloc ((size_t) N * N);
  int *wi = malloc (sizeof (int) * K * K);
  float *wf = malloc (sizeof (float) * K * K);
  int sum = 0;
  for (size_t i = 0; i < (size_t) N * N; i++)
    src[i] = (uint8_t) rnd ();
  for (int i = 0; i < K * K; i++) {
    wi[i] = rnd_range (-2, 3);
    wf[i] = (float) wi[i];
    sum += wi[i];
  }
  const int d = sum > 0 ? sum : 1, offset = 16;
  KConvKernel k = { K, K, wf, d, offset, 0 };
  KConvOptions opt = { KCONV_BACKEND_CPU, 0, -1 };
  KConvFilter *f = NULL;
  CHECK (kconv_filter_new (&k, KCONV_BORDER_REPLICATE, &opt, &f) == KCONV_OK,
      "filter: %s", kconv_last_error ());
  KConvImage in = { src, N, N, N, 1, 1, {0} }, out = in;
  out.data = dst;
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  CHECK (f && kconv_filter_run (f, &in, &out) == KCONV_OK, "run: %s",
      kconv_last_error ());
  clock_gettime (CLOCK_MONOTONIC, &t1);
  printf ("%dx%d, %dx%d kernel (%s path): %.2f s\n", N, N, K, K,
      f ? kconv_filter_strategy (f) : "-", (double) (t1.tv_sec - t0.tv_sec)
      + (t1.tv_nsec - t0.tv_nsec) / 1e9);

  /* corners and edge middles (blocks of 24 x 24), then random pixels */
  int bad = 0, checked = 0;
  const int spots[][2] = { {0, 0}, {N - 24, 0}, {0, N - 24}, {N - 24, N - 24},
  {N / 2, 0}, {0, N / 2}, {N - 24, N / 2}, {N / 2, N - 24}
  };
  for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++)
    for (int y = spots[s][1]; y < spots[s][1] + 24; y++)
      for (int x = spots[s][0]; x < spots[s][0] + 24; x++, checked++)
        if (dst[(size_t) y * N + x] != expected (src, wi, d, offset, x, y)
            && bad++ < 5)
          CHECK (0, "pixel %d,%d is %u, want %u", x, y,
              dst[(size_t) y * N + x], expected (src, wi, d, offset, x, y));
  for (int i = 0; i < 400; i++, checked++) {
    const int x = rnd_range (0, N - 1), y = rnd_range (0, N - 1);
    if (dst[(size_t) y * N + x] != expected (src, wi, d, offset, x, y)
        && bad++ < 5)
      CHECK (0, "pixel %d,%d is %u, want %u", x, y, dst[(size_t) y * N + x],
          expected (src, wi, d, offset, x, y));
  }
  CHECK (bad == 0, "%d of %d pixels checked differ", bad, checked);
  printf ("%d pixels checked\n", checked);
  kconv_filter_free (f);
  free (src);
  free (dst);
  free (wi);
  free (wf);
  return check_summary ();
}
