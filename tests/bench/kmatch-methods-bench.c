/* kconv: the ssd, ncc and zncc searches beside OpenCV's matchTemplate
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-methods-bench --photos DIR [--threads N] [--quick] [--csv FILE]
 *                        [--only TEXT]
 *
 * On the natural photographs tests/photos.sh writes (grey, and RGB with
 * --only rgb), a template cut from each and its light changed (times
 * 0.8, plus 20, noise of +-3): every method of the core's CPU matcher
 * (the best position alone), and OpenCV's matchTemplate by the same
 * formula (TM_SQDIFF, TM_CCORR_NORMED, TM_CCOEFF_NORMED) with its
 * minMaxLoc, on the same frames and threads.  The two are timed in turns,
 * three rounds of medians; each row gives the median of the rounds and
 * the ratio, and where each found the template.
 *
 * Built with the CUDA backend, and a GPU there, rows named "cuda ..." (on
 * grey photographs; --only cuda for them alone) time the CUDA matcher on
 * frames in device memory (kmatch_search_device: the best position and
 * its score come back) beside NPP's normalized searches on the same
 * device-resident frames (nppiSqrDistanceValid_Norm, nppiCrossCorrValid_Norm
 * and nppiCrossCorrValid_NormLevel, then the map's MinIndx or MaxIndx).
 * "same" says whether the GPU found what the CPU matcher found, with the
 * same score, bit for bit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"
#include "bench-harness.h"
#include "photo.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_OPENCV
#include "bench-peer-opencv.h"
#endif
#ifdef KCONV_BENCH_CUDA
#include <cuda_runtime_api.h>
#include "device-copy.h"
#endif
#ifdef KCONV_BENCH_NPP
#include "bench-peer-npp.h"
#endif

typedef struct
{
  KMatch *m;
  KConvImage im;
  KMatchPosition best;
  int n;
} Search;

static void
run_search (void *p)
{
  Search *s = p;
  kmatch_search (s->m, &s->im, NULL, 1, &s->best, &s->n, NULL);
}

#ifdef KCONV_BENCH_OPENCV
typedef struct
{
  int method;
  const uint8_t *frame, *t;
  int w, h, tw, th, ch, x, y;
  double value;
} OpencvSearch;

static void
run_opencv (void *p)
{
  OpencvSearch *o = p;
  peer_opencv_match (o->method, o->frame, o->w, o->h, o->t, o->tw, o->th,
      o->ch, &o->x, &o->y, &o->value);
}
#endif

/* The template at (px, py), its light changed: v * 0.8 + 20 + noise */
static uint8_t *
cut_template (const uint8_t * frame, int w, int ch, int tw, int th, int px,
    int py)
{
  uint8_t *t = malloc ((size_t) tw * th * ch);
  for (int y = 0; y < th; y++)
    for (int i = 0; i < tw * ch; i++) {
      int v = frame[((size_t) (py + y) * w + px) * ch + i] * 4 / 5 + 20 +
          rand () % 7 - 3;
      t[y * tw * ch + i] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  return t;
}

#ifdef KCONV_BENCH_CUDA
static void
run_search_device (void *p)
{
  Search *s = p;
  kmatch_search_device (s->m, &s->im, 0, NULL, 1, &s->best, &s->n);
}

#ifdef KCONV_BENCH_NPP
typedef struct
{
  int method;
  const uint8_t *frame, *t;
  int w, h, tw, th, x, y;
  double value;
} NppSearch;

static void
run_npp (void *p)
{
  NppSearch *o = p;
  if (peer_npp_match_method (o->method, o->frame, o->w, o->h, o->t, o->tw,
          o->th, &o->x, &o->y, &o->value, NULL) != 0)
    o->x = o->y = -1;
}
#endif


/* The CUDA matcher on a grey frame in device memory beside NPP */
static void
bench_cuda_case (const BenchArgs * args, const char *name, KMatchMethod method,
    const uint8_t * frame, int w, int h, const uint8_t * t, int tw, int th,
    int px, int py)
{
  const int reps = args->quick ? 3 : 9;
  const double budget = args->quick ? 300 : 2000;
  uint8_t *d_frame = device_copy_of (frame, (size_t) w * h);
  uint8_t *d_t = device_copy_of (t, (size_t) tw * th);
  KConvOptions gpu = { KCONV_BACKEND_CUDA, args->threads, -1 };
  KConvOptions cpu = { KCONV_BACKEND_CPU, args->threads, -1 };
  Search s = { NULL, {d_frame, w, h, w, 1, 1, {0}}, {-1, -1, 0}, 0 };
  Search host = { NULL, {(uint8_t *) frame, w, h, w, 1, 1, {0}}, {-1, -1, 0},
  0
  };
  if (!d_frame || !d_t || kmatch_new (&gpu, &s.m) != KCONV_OK
      || kmatch_backend (s.m) != KCONV_BACKEND_CUDA
      || kmatch_new (&cpu, &host.m) != KCONV_OK) {
    printf ("%-36s (no CUDA matcher: %s)\n", name, kconv_last_error ());
    return;
  }
  KMatch *both[2] = { s.m, host.m };
  for (int i = 0; i < 2; i++) {
    kmatch_set_method (both[i], method);
    kmatch_set_template (both[i], t, tw, th, tw, 1);
  }
  run_search (&host);
  double ours[3], theirs[3] = { -1, -1, -1 };
#ifdef KCONV_BENCH_NPP
  NppSearch o = { (int) method, d_frame, d_t, w, h, tw, th, -1, -1, 0 };
#endif
  for (int round = 0; round < 3; round++) {
    ours[round] = bench_time_ms (run_search_device, &s, budget, reps);
#ifdef KCONV_BENCH_NPP
    theirs[round] = bench_time_ms (run_npp, &o, budget * 4, reps);
#endif
  }
  const int same = s.n == 1 && s.best.x == host.best.x
      && s.best.y == host.best.y && s.best.score == host.best.score;
  const double ms = bench_median (ours, 3), peer = bench_median (theirs, 3);
  printf ("%-36s %-5s %9.3f %5d,%-5d%s %9.4f %-4s", name,
      kmatch_method_name (method), ms, s.best.x, s.best.y,
      s.best.x == px && s.best.y == py ? " " : "*", method ==
      KMATCH_METHOD_SSD ? s.best.score : s.best.correlation,
      same ? "same" : "DIFF");
#ifdef KCONV_BENCH_NPP
  printf (" %10.3f %5d,%-5d %9.4f %7.2fx", peer, o.x, o.y, o.value, peer / ms);
#endif
  printf ("\n");
  bench_csv_row (args, "%s,%s,%.4f,%.4f", name, kmatch_method_name (method),
      ms, peer);
  fflush (stdout);
  kmatch_free (s.m);
  kmatch_free (host.m);
  cudaFree (d_frame);
  cudaFree (d_t);
}
#endif

static void
bench_case (const BenchArgs * args, const char *name, KMatchMethod method,
    const uint8_t * frame, int w, int h, int ch, const uint8_t * t, int tw,
    int th, int px, int py)
{
  const int reps = args->quick ? 3 : w > 2000 ? 5 : 9;
  const double budget = args->quick ? 300 : 3000;
  KConvOptions opt = { KCONV_BACKEND_CPU, args->threads, -1 };
  Search s = { NULL, {(uint8_t *) frame, w, h, (ptrdiff_t) w * ch, ch, ch,
      {0, 1, 2}}, {-1, -1, 0}, 0
  };
  kmatch_new (&opt, &s.m);
  kmatch_set_method (s.m, method);
  kmatch_set_template (s.m, t, tw, th, (ptrdiff_t) tw * ch, ch);
  double ours[3], theirs[3] = { -1, -1, -1 };
#ifdef KCONV_BENCH_OPENCV
  OpencvSearch o = { method, frame, t, w, h, tw, th, ch, -1, -1, 0 };
#endif
  for (int round = 0; round < 3; round++) {
    ours[round] = bench_time_ms (run_search, &s, budget, reps);
#ifdef KCONV_BENCH_OPENCV
    theirs[round] = bench_time_ms (run_opencv, &o, budget, reps);
#endif
  }
  const double ms = bench_median (ours, 3), peer = bench_median (theirs, 3);
  printf ("%-36s %-5s %9.2f %5d,%-5d%s %9.4f", name,
      kmatch_method_name (method), ms, s.best.x, s.best.y,
      s.best.x == px && s.best.y == py ? " " : "*", method ==
      KMATCH_METHOD_SSD ? s.best.score : s.best.correlation);
#ifdef KCONV_BENCH_OPENCV
  printf (" %10.2f %5d,%-5d %9.4f %7.2fx", peer, o.x, o.y, method ==
      KMATCH_METHOD_SSD ? o.value / (255.0 * 255 * tw * th * ch) : o.value,
      peer / ms);
#endif
  printf ("\n");
  bench_csv_row (args, "%s,%s,%.3f,%.3f", name, kmatch_method_name (method),
      ms, peer);
  fflush (stdout);
  kmatch_free (s.m);
}

static const int cases[][4] = {
  {2500, 2500, 250, 250}, {1920, 1080, 64, 64}, {1920, 1080, 16, 16},
};

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  BenchArgs args;
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV |
          BENCH_ONLY | BENCH_PHOTOS, "case,method,kconv_cpu_ms,opencv_ms",
          &args))
    return 2;
  if (!args.photos) {
    fprintf (stderr, "kmatch-methods-bench: --photos DIR (tests/photos.sh "
        "DIR writes them)\n");
    return 2;
  }
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (args.threads > 0 ? args.threads : -1);
  printf ("peer: OpenCV %s cv::matchTemplate + minMaxLoc, same threads\n",
      peer_opencv_version ());
#else
  printf ("peer: none (built without OpenCV)\n");
#endif
  printf ("\n%-36s %-5s %9s %11s %9s %10s %11s %9s %8s\n", "case", "method",
      "kconv ms", "found", "value", "opencv ms", "found", "value", "speedup");
  printf ("(value: the correlation, or for ssd the score; * after found: "
      "not where the template was cut)\n");
  srand (3);
  static const char *photos[] = { "camera", "astronaut", "coffee", "chelsea" };
  for (int ch = 1; ch <= 3; ch += 2)
    for (size_t p = 0; p < sizeof photos / sizeof photos[0]; p++)
      for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int w = cases[c][0], h = cases[c][1];
        const int tw = cases[c][2], th = cases[c][3];
        char name[64];
        snprintf (name, sizeof name, "%s%s %dx%d / %dx%d", photos[p],
            ch == 3 ? " rgb" : "", w, h, tw, th);
        if (!bench_selected (&args, name) || (ch == 3 && !args.only))
          continue;
        uint8_t *frame = photo_load (args.photos, photos[p], w, h, ch);
        if (!frame) {
          printf ("%-36s (not in %s: run tests/photos.sh %s)\n", name,
              args.photos, args.photos);
          continue;
        }
        const int px = w * (2 + (int) p) / 7, py = h * (4 - (int) p % 3) / 9;
        uint8_t *t = cut_template (frame, w, ch, tw, th, px, py);
        for (int m = KMATCH_METHOD_SSD; m <= KMATCH_METHOD_ZNCC; m++)
          bench_case (&args, name, (KMatchMethod) m, frame, w, h, ch, t, tw,
              th, px, py);
        free (frame);
        free (t);
      }
#ifdef KCONV_BENCH_CUDA
  if (kconv_backend_available (KCONV_BACKEND_CUDA)) {
#ifdef KCONV_BENCH_NPP
    printf ("\nCUDA, frames in device memory; peer: NPP's normalized "
        "searches and MinIndx/MaxIndx, same frames\n");
#else
    printf ("\nCUDA, frames in device memory; peer: none (built without "
        "NPP)\n");
#endif
    printf ("%-36s %-5s %9s %11s %9s %-4s %10s %11s %9s %8s\n", "case",
        "method", "kconv ms", "found", "value", "cpu", "npp ms", "found",
        "value", "speedup");
    srand (3);
    for (size_t p = 0; p < sizeof photos / sizeof photos[0]; p++)
      for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int w = cases[c][0], h = cases[c][1];
        const int tw = cases[c][2], th = cases[c][3];
        char name[64];
        snprintf (name, sizeof name, "cuda %s %dx%d / %dx%d", photos[p], w,
            h, tw, th);
        if (!bench_selected (&args, name))
          continue;
        uint8_t *frame = photo_load (args.photos, photos[p], w, h, 1);
        if (!frame)
          continue;
        const int px = w * (2 + (int) p) / 7, py = h * (4 - (int) p % 3) / 9;
        uint8_t *t = cut_template (frame, w, 1, tw, th, px, py);
        for (int m = KMATCH_METHOD_SSD; m <= KMATCH_METHOD_ZNCC; m++)
          bench_cuda_case (&args, name, (KMatchMethod) m, frame, w, h, t, tw,
              th, px, py);
        free (frame);
        free (t);
      }
#ifdef KCONV_BENCH_NPP
    peer_npp_match_method_free ();
#endif
  }
#endif
  bench_args_clear (&args);
  return 0;
}
