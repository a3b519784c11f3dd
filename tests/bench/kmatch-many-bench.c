/* kconv: several templates, one frame: each searched in turn beside one
 * pass over the frame (kmatch_search_many)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-many-bench --photos DIR [--threads N] [--quick] [--csv FILE]
 *                     [--only TEXT]
 *
 * 1, 2, 4 and 8 templates of 64x64 cut from a 1920x1080 photograph (the
 * places tests/bench/bench-templates.sh cuts them), searched for the best
 * position of each in that photograph: grey (camera, GRAY8 samples
 * compared as they lie) and the luma of RGBA (astronaut, four bytes a
 * pixel), by sad and zncc, on the CPU and, where there is one, on CUDA
 * (the frame in host memory, page-locked where it can be, as a pool of
 * video buffers would hand it).  "in turn" times one search after the
 * other, "one pass" kmatch_search_many; medians of three rounds, each
 * row with the cost of a template beyond the first.  Both find the same
 * positions (checked).  Last, on the host, kmatch_refine of one 64x64
 * grey template that lies between pixels (a blend of two cuts a pixel
 * apart across and down), every method: ms a match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"
#include "bench-harness.h"
#include "photo.h"

#define W 1920
#define H 1080
#define T 64
#define MAX_T 8

static const int places[MAX_T][2] = {
  {300, 200}, {900, 150}, {1500, 300}, {200, 700}, {800, 600}, {1300, 800},
  {1700, 900}, {500, 950}
};

typedef struct
{
  KMatch *ms[MAX_T];
  int n, luma;
  KConvImage im;
  KMatchRegion regions[MAX_T];
  KMatchPosition found[MAX_T];
  int n_found[MAX_T];
} Case;

static void
in_turn (void *p)
{
  Case *c = p;
  for (int i = 0; i < c->n; i++)
    if ((c->luma ? kmatch_search_luma : kmatch_search) (c->ms[i], &c->im,
            NULL, 1, &c->found[i], &c->n_found[i], NULL) != KCONV_OK) {
      fprintf (stderr, "search: %s\n", kconv_last_error ());
      exit (1);
    }
}

static void
one_pass (void *p)
{
  Case *c = p;
  if (kmatch_search_many (c->ms, c->n, &c->im, c->luma, 0, c->regions, 1,
          c->found, c->n_found) != KCONV_OK) {
    fprintf (stderr, "kmatch_search_many: %s\n", kconv_last_error ());
    exit (1);
  }
}

static void
bench (const BenchArgs * args, KConvBackend backend, const char *layout,
    const KConvImage * im, int luma, KMatchMethod method)
{
  const KConvBackendInfo *info = kconv_backend_info (backend);
  const KConvOptions opt = { backend, args->threads, -1 };
  double first[2] = { 0, 0 };
  for (int n = 1; n <= MAX_T; n *= 2) {
    char name[128];
    snprintf (name, sizeof name, "%s %s %s %d", info->name, layout,
        kmatch_method_name (method), n);
    if (!bench_selected (args, name))
      continue;
    Case c = { {NULL}, n, luma, *im };
    for (int i = 0; i < n; i++) {
      const KMatchRegion r = { places[i][0], places[i][1], T, T };
      uint8_t *t = kmatch_cut_template (im, &r, luma ? 1 : im->n_channels);
      if (!t || kmatch_new (&opt, &c.ms[i]) != KCONV_OK
          || kmatch_set_method (c.ms[i], method) != KCONV_OK
          || kmatch_set_template (c.ms[i], t, T, T, T * (luma ? 1 :
                  im->n_channels), luma ? 1 : im->n_channels) != KCONV_OK) {
        fprintf (stderr, "%s: %s\n", name, kconv_last_error ());
        exit (1);
      }
      free (t);
      c.regions[i] = (KMatchRegion) {
      0, 0, im->width, im->height};
    }
    double t[2][3];
    const double budget = args->quick ? 100 : 500;
    KMatchPosition turn[MAX_T];
    for (int round = 0; round < 3; round++) {
      t[0][round] = bench_time_ms (in_turn, &c, budget, 50);
      memcpy (turn, c.found, sizeof turn);
      t[1][round] = bench_time_ms (one_pass, &c, budget, 50);
    }
    int same = 1;
    for (int i = 0; i < n; i++)
      same &= turn[i].x == c.found[i].x && turn[i].y == c.found[i].y
          && turn[i].score == c.found[i].score
          && c.found[i].x == places[i][0] && c.found[i].y == places[i][1];
    const double ms[2] = { bench_median (t[0], 3), bench_median (t[1], 3) };
    if (n == 1)
      memcpy (first, ms, sizeof first);
    char more[2][32] = { "", "" };
    for (int k = 0; k < 2 && n > 1; k++)
      snprintf (more[k], sizeof more[k], "%.3f", (ms[k] - first[k]) / (n - 1));
    printf ("%-28s %10.3f %10.3f %10s %10s %6.2f  %s\n", name, ms[0], ms[1],
        more[0], more[1], ms[0] / ms[1], same ? "same" : "DIFFER");
    bench_csv_row (args, "%s,%s,%s,%d,%.4f,%.4f,%d", info->name, layout,
        kmatch_method_name (method), n, ms[0], ms[1], same);
    for (int i = 0; i < n; i++)
      kmatch_free (c.ms[i]);
  }
}

typedef struct
{
  KMatch *m;
  const KConvImage *im;
  KMatchPosition p;
} Refine;

static void
refine (void *p)
{
  Refine *r = p;
  KMatchPosition q = r->p;
  if (kmatch_refine (r->m, r->im, 0, NULL, &q, 1) != KCONV_OK) {
    fprintf (stderr, "kmatch_refine: %s\n", kconv_last_error ());
    exit (1);
  }
  r->p.sub_x = q.sub_x;
  r->p.sub_y = q.sub_y;
}

static void
bench_refine (const BenchArgs * args, const KConvImage * grey)
{
  const KMatchRegion a = { 900, 300, T, T }, b = { 901, 301, T, T };
  uint8_t *t = kmatch_cut_template (grey, &a, 1);
  uint8_t *u = kmatch_cut_template (grey, &b, 1);
  for (int i = 0; i < T * T; i++)
    t[i] = (uint8_t) ((t[i] * 6 + u[i] * 4 + 5) / 10);
  for (int m = KMATCH_METHOD_SAD; m <= KMATCH_METHOD_ZNCC; m++) {
    char name[64];
    snprintf (name, sizeof name, "refine %s", kmatch_method_name (m));
    if (!bench_selected (args, name))
      continue;
    Refine r = { NULL, grey, {900, 300}
    };
    kmatch_new (NULL, &r.m);
    kmatch_set_method (r.m, (KMatchMethod) m);
    kmatch_set_template (r.m, t, T, T, T, 1);
    double ms[3];
    for (int round = 0; round < 3; round++)
      ms[round] = bench_time_ms (refine, &r, args->quick ? 50 : 200, 100);
    printf ("%-28s %10.3f   at (%.3f, %.3f)\n", name, bench_median (ms, 3),
        r.p.sub_x, r.p.sub_y);
    bench_csv_row (args, "cpu,grey,%s,refine,%.4f,,1",
        kmatch_method_name (m), bench_median (ms, 3));
    kmatch_free (r.m);
  }
  free (t);
  free (u);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV
          | BENCH_ONLY | BENCH_PHOTOS,
          "backend,layout,method,templates,in_turn_ms,one_pass_ms,same",
          &args) != 0)
    return 2;
  if (!args.photos) {
    fprintf (stderr, "--photos DIR (tests/photos.sh) is needed\n");
    return 2;
  }
  uint8_t *grey = photo_load (args.photos, "camera", W, H, 1);
  uint8_t *rgb = photo_load (args.photos, "astronaut", W, H, 3);
  if (!grey || !rgb) {
    fprintf (stderr, "camera and astronaut at 1920x1080 not in %s\n",
        args.photos);
    return 2;
  }
  /* frames where a pool of video buffers would put them */
  int pinned[2];
  uint8_t *gray8 = kconv_host_alloc ((size_t) W * H, &pinned[0]);
  uint8_t *rgba = kconv_host_alloc ((size_t) W * H * 4, &pinned[1]);
  memcpy (gray8, grey, (size_t) W * H);
  for (size_t i = 0; i < (size_t) W * H; i++) {
    memcpy (rgba + i * 4, rgb + i * 3, 3);
    rgba[i * 4 + 3] = 255;
  }
  const KConvImage grey_im = { gray8, W, H, W, 1, 1, {0} };
  const KConvImage rgba_im = { rgba, W, H, W * 4, 4, 3, {0, 1, 2} };

  printf ("1920x1080, 64x64 templates, the best of each; ms a frame "
      "(frames %spage-locked)\n", pinned[0] && pinned[1] ? "" : "not ");
  printf ("%-28s %10s %10s %10s %10s %6s\n", "", "in turn", "one pass",
      "+1 turn", "+1 pass", "ratio");
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  for (int b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b]))
      continue;
    for (int m = KMATCH_METHOD_SAD; m <= KMATCH_METHOD_ZNCC;
        m += KMATCH_METHOD_ZNCC - KMATCH_METHOD_SAD) {
      bench (&args, backends[b], "grey", &grey_im, 0, (KMatchMethod) m);
      bench (&args, backends[b], "RGBA-luma", &rgba_im, 1, (KMatchMethod) m);
    }
  }
  bench_refine (&args, &grey_im);
  kconv_host_free (gray8, pinned[0]);
  kconv_host_free (rgba, pinned[1]);
  free (grey);
  free (rgb);
  bench_args_clear (&args);
  return 0;
}
