/* kconv: many callers at once on the CPU backend's OpenMP teams
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Eight threads (as eight pipelines in one process would), each with its
 * own filters and matcher on its own frames: a small kernel, a separable
 * one, one through the FFT, and a template search, over and over, all at
 * once.  Every result must equal what the same call gave alone.  Run under
 * ThreadSanitizer by tests/run-sanitizers.sh.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "kmatch.h"

#define CALLERS 8
#define ROUNDS 6
#define W 203
#define H 117

typedef struct
{
  uint8_t *src, *want[3], *got;
  KConvFilter *filter[3];
  KMatch *matcher;
  KMatchPosition want_match;
  int failures;
} Caller;

static void
run_all (Caller * c, uint8_t * const out[3], KMatchPosition * match)
{
  KConvImage in = { c->src, W, H, W * 3, 3, 3, {0, 1, 2} };
  for (int k = 0; k < 3; k++) {
    KConvImage o = in;
    o.data = out[k];
    kconv_filter_run (c->filter[k], &in, &o);
  }
  int n = 0;
  kmatch_search (c->matcher, &in, NULL, 1, match, &n, NULL);
}

static void *
caller_main (void *p)
{
  Caller *c = p;
  for (int r = 0; r < ROUNDS; r++) {
    uint8_t *out[3] = { c->got, c->got + W * H * 3, c->got + 2 * W * H * 3 };
    KMatchPosition m = { -1, -1, 0 };
    run_all (c, out, &m);
    for (int k = 0; k < 3; k++)
      c->failures += memcmp (out[k], c->want[k], W * H * 3) != 0;
    c->failures += memcmp (&m, &c->want_match, sizeof m) != 0;
  }
  return NULL;
}

int
main (void)
{
  test_rng_seed (88);
  static float small[9] = { 1, -2, 1, 2, 5, 2, 1, -2, 1 };
  static float sep[25], big[31 * 31];
  const float g[5] = { 1, 4, 6, 4, 1 };
  for (int i = 0; i < 25; i++)
    sep[i] = g[i / 5] * g[i % 5];
  for (int i = 0; i < 31 * 31; i++)
    big[i] = (float) rnd_range (-3, 4);
  const KConvKernel kernels[3] = {
    {3, 3, small, 9, 0, 0}, {5, 5, sep, 256, 0, 0}, {31, 31, big, 0, 0, 0}
  };
  KConvOptions opt = { KCONV_BACKEND_CPU, 2, -1 };
  Caller callers[CALLERS];
  for (int i = 0; i < CALLERS; i++) {
    Caller *c = &callers[i];
    memset (c, 0, sizeof *c);
    c->src = malloc (W * H * 3);
    c->got = malloc (W * H * 3 * 3);
    for (int p = 0; p < W * H * 3; p++)
      c->src[p] = (uint8_t) rnd ();
    for (int k = 0; k < 3; k++) {
      c->want[k] = malloc (W * H * 3);
      CHECK (kconv_filter_new (&kernels[k], (KConvBorder) (k + i) % 4, &opt,
              &c->filter[k]) == KCONV_OK, "filter %d", k);
    }
    CHECK (kmatch_new (&opt, &c->matcher) == KCONV_OK, "matcher");
    /* a 40x30 template cut from the frame */
    uint8_t t[40 * 30 * 3];
    const int tx = 7 * i, ty = 3 * i;
    for (int y = 0; y < 30; y++)
      memcpy (t + y * 40 * 3, c->src + ((ty + y) * W + tx) * 3, 40 * 3);
    kmatch_set_template (c->matcher, t, 40, 30, 40 * 3, 3);
    /* what each call gives alone */
    run_all (c, c->want, &c->want_match);
  }
  pthread_t threads[CALLERS];
  for (int i = 0; i < CALLERS; i++)
    pthread_create (&threads[i], NULL, caller_main, &callers[i]);
  for (int i = 0; i < CALLERS; i++)
    pthread_join (threads[i], NULL);
  for (int i = 0; i < CALLERS; i++) {
    Caller *c = &callers[i];
    CHECK (c->failures == 0, "caller %d: %d results differ from the same "
        "call alone", i, c->failures);
    for (int k = 0; k < 3; k++) {
      kconv_filter_free (c->filter[k]);
      free (c->want[k]);
    }
    kmatch_free (c->matcher);
    free (c->src);
    free (c->got);
  }
  printf ("%d callers x %d rounds of 3 filters and a search\n", CALLERS,
      ROUNDS);
  return check_summary ();
}
