/* kconv: template matching of 10- and 16-bit luma against 8-bit, on each
 * backend this build runs
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-depth-bench [--threads N] [--quick] [--csv FILE] [--only TEXT]
 *
 * The same search on the same frame (a photograph-like texture: random
 * values smoothed along rows) held as 8-bit, 10-bit (P010: six bits up)
 * and 16-bit luma, the template cut from it with noise, by each method.
 * Each row: the median ms of the 8-bit search and of the deeper one, and
 * their ratio.  The 8-bit SAD search prunes what it can prove loses; the
 * deeper one is exhaustive.  ssd, ncc and zncc correlate 16-bit values
 * with the template's high and low bytes in turn.  CUDA's rows are device-resident (frame in device memory,
 * only the best position back) where the build has the CUDA backend.
 * OpenCV's matchTemplate takes 8-bit and float images only, so no peer
 * matches 16-bit samples as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"
#include "bench-harness.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

typedef struct
{
  KMatch *m;
  KConvImage im;
  int on_device;
  KMatchPosition best;
  int n;
} Search;

static void
run_search (void *p)
{
  Search *s = p;
  KConvStatus st = s->on_device ? kmatch_search_device (s->m, &s->im, 0,
      NULL, 1, &s->best, &s->n) : kmatch_search (s->m, &s->im, NULL, 1,
      &s->best, &s->n, NULL);
  if (st != KCONV_OK) {
    fprintf (stderr, "search failed: %s\n", kconv_last_error ());
    exit (1);
  }
}

/* One frame's values, 0 .. 2^depth - 1 */
static uint16_t *
texture (int w, int h, int depth)
{
  uint16_t *v = malloc (sizeof *v * (size_t) w * h);
  srand (7);
  double s = 0.5;
  for (size_t i = 0; i < (size_t) w * h; i++) {
    s = 0.9 * s + 0.1 * (rand () / (double) RAND_MAX);
    v[i] = (uint16_t) (s * ((1u << depth) - 1));
  }
  return v;
}

/* Median ms of the search of a w x h frame for the tw x th block at
 * (tx, ty) plus noise, at `depth` bits (8: bytes; 10: P010's layout) */
static double
time_search (KConvBackend backend, KMatchMethod method, int w, int h, int tw,
    int th, int depth, int n_threads, double budget)
{
  const int tx = w / 3, ty = h / 2, bytes = depth > 8 ? 2 : 1;
  const int shift = depth == 10 ? 6 : 0;
  uint16_t *v = texture (w, h, depth);
  uint8_t *frame = malloc ((size_t) w * h * bytes);
  for (size_t i = 0; i < (size_t) w * h; i++) {
    if (bytes == 1)
      frame[i] = (uint8_t) v[i];
    else {
      frame[2 * i] = (uint8_t) (v[i] << shift);
      frame[2 * i + 1] = (uint8_t) ((v[i] << shift) >> 8);
    }
  }
  const int max = (1 << depth) - 1, noise = 3 << (depth - 8);
  uint16_t *t16 = malloc (sizeof *t16 * (size_t) tw * th);
  uint8_t *t8 = malloc ((size_t) tw * th);
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++) {
      int x = v[(ty + j) * w + tx + i] + rand () % (2 * noise + 1) - noise;
      x = x < 0 ? 0 : x > max ? max : x;
      t16[j * tw + i] = (uint16_t) x;
      t8[j * tw + i] = (uint8_t) x;
    }
  KConvOptions opt = { backend, n_threads, -1 };
  Search s = { NULL };
  if (kmatch_new (&opt, &s.m) != KCONV_OK
      || kmatch_set_method (s.m, method) != KCONV_OK
      || (depth > 8 ? kmatch_set_template_deep (s.m, t16, tw, th, tw, depth) :
          kmatch_set_template (s.m, t8, tw, th, tw, 1)) != KCONV_OK) {
    fprintf (stderr, "matcher: %s\n", kconv_last_error ());
    exit (1);
  }
  KConvImage im = { frame, w, h, (ptrdiff_t) w * bytes, bytes, 1, {0} };
  im.depth = depth > 8 ? depth : 0;
  im.shift = shift;
  s.im = im;
#ifdef KCONV_BENCH_CUDA
  void *d_frame = NULL;
  if (backend == KCONV_BACKEND_CUDA) {
    if (cudaMalloc (&d_frame, (size_t) w * h * bytes) != cudaSuccess
        || cudaMemcpy (d_frame, frame, (size_t) w * h * bytes,
            cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf (stderr, "device memory for the frame\n");
      exit (1);
    }
    s.im.data = d_frame;
    s.on_device = 1;
  }
#endif
  const double ms = bench_time_ms (run_search, &s, budget, 31);
  if (s.best.x != tx || s.best.y != ty)
    fprintf (stderr, "warning: %d-bit %s search found %d,%d, not %d,%d\n",
        depth, kmatch_method_name (method), s.best.x, s.best.y, tx, ty);
#ifdef KCONV_BENCH_CUDA
  if (d_frame)
    cudaFree (d_frame);
#endif
  kmatch_free (s.m);
  free (v);
  free (frame);
  free (t16);
  free (t8);
  return ms;
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  tuning_from_environment ();
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV
          | BENCH_ONLY, "backend,case,method,depth,ms_8bit,ms_deep,ratio",
          &args))
    return 2;
  static const KConvBackend backends[] = { KCONV_BACKEND_CPU,
    KCONV_BACKEND_CUDA
  };
  static const struct
  {
    const char *name;
    int w, h, tw, th;
  } cases[] = {
    {"1080p/16x16", 1920, 1080, 16, 16},
    {"1080p/64x64", 1920, 1080, 64, 64},
    {"720p/128x128", 1280, 720, 128, 128},
  };
  static const int depths[] = { 10, 16 };
  const double budget = args.quick ? 300 : 1500;
  printf ("%-5s %-16s %-6s %5s %9s %9s %7s\n", "", "case", "method", "depth",
      "8-bit ms", "deep ms", "ratio");
  for (size_t b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b]))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
      for (int m = KMATCH_METHOD_SAD; m <= KMATCH_METHOD_ZNCC; m++) {
        char name[64];
        snprintf (name, sizeof name, "%s %s %s",
            kconv_backend_name (backends[b]), cases[c].name,
            kmatch_method_name ((KMatchMethod) m));
        if (args.only && !strstr (name, args.only))
          continue;
        /* the 8-bit and the deeper searches in turns, medians of three */
        double t8[3], td[2][3];
        for (int round = 0; round < 3; round++) {
          t8[round] = time_search (backends[b], (KMatchMethod) m, cases[c].w,
              cases[c].h, cases[c].tw, cases[c].th, 8, args.threads, budget);
          for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            td[d][round] = time_search (backends[b], (KMatchMethod) m,
                cases[c].w, cases[c].h, cases[c].tw, cases[c].th, depths[d],
                args.threads, budget);
        }
        const double ms8 = bench_median (t8, 3);
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
          const double ms = bench_median (td[d], 3);
          printf ("%-5s %-16s %-6s %5d %9.3f %9.3f %7.2f\n",
              kconv_backend_name (backends[b]), cases[c].name,
              kmatch_method_name ((KMatchMethod) m), depths[d], ms8, ms,
              ms / ms8);
          if (args.csv)
            fprintf (args.csv, "%s,%s,%s,%d,%.4f,%.4f,%.3f\n",
                kconv_backend_name (backends[b]), cases[c].name,
                kmatch_method_name ((KMatchMethod) m), depths[d], ms8, ms,
                ms / ms8);
          fflush (stdout);
        }
      }
  }
  bench_args_clear (&args);
  return 0;
}
