/* kconv: template matching benchmark, with OpenCV on the same frames
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-bench [--threads N] [--quick] [--csv FILE] [--only TEXT]
 *                [--photos DIR]
 *
 * Exact SAD search (the core, no GStreamer) on grey frames: random pixels
 * with a template cut from them with noise, or from other noise (absent:
 * nothing to prune, the worst case), and
 * with --photos the natural photographs tests/photos.sh writes there, a
 * template cut from each with noise of +-3 added.  OpenCV's matchTemplate
 * (TM_SQDIFF, which it computes through the DFT) on the same data and
 * threads is the peer.  Each row: median ms, the work (positions x template pixels) in
 * G differences per second, OpenCV's median and the ratio.  Where a GPU is
 * usable, the CUDA matcher too: frame uploaded from host memory each time,
 * only the best position back (what the element does per frame).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kmatch.h"
#include "bench-harness.h"
#include "photo.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_OPENCV
#include "bench-peer-opencv.h"
#endif
#ifdef KCONV_BENCH_NPP
#include <cuda_runtime_api.h>
#include "bench-peer-npp.h"
#endif

/* One search of the frame for the best position; with a map to fill, the
 * CPU visits every position in full (no pruning). */
typedef struct
{
  KMatch *m;
  const KConvImage *im;
  KMatchPosition best;
  int n;
  uint64_t *map;
} Search;

static void
run_search (void *p)
{
  Search *s = p;
  kmatch_search (s->m, s->im, NULL, 1, &s->best, &s->n, s->map);
}

#ifdef KCONV_BENCH_OPENCV
typedef struct
{
  const uint8_t *frame, *t;
  int w, h, tw, th, x, y;
} OpencvSearch;

static void
run_opencv (void *p)
{
  OpencvSearch *o = p;
  peer_opencv_match_sqdiff (o->frame, o->w, o->h, o->t, o->tw, o->th, &o->x,
      &o->y);
}
#endif

#ifdef KCONV_BENCH_NPP
typedef struct
{
  const uint8_t *df, *dt;
  int w, h, tw, th, x, y;
} NppSearch;

static void
run_npp (void *p)
{
  NppSearch *n = p;
  peer_npp_match (n->df, n->w, n->h, n->dt, n->tw, n->th, &n->x, &n->y, NULL);
}
#endif

/* The CUDA matcher on the same frame, opaque then with transparent
 * corners; -1 where it cannot run. */
static void
bench_cuda (const uint8_t * t, int tw, int th, const KConvImage * im,
    double cpu_ms, double work, int pinned, double budget, double *opaque_ms,
    double *masked_ms)
{
  *opaque_ms = *masked_ms = -1;
  KConvOptions gopt = { KCONV_BACKEND_CUDA, 0, -1 };
  Search g = { NULL, im, {-1, -1, 0}, 0, NULL };
  if (kmatch_new (&gopt, &g.m) != KCONV_OK
      || kmatch_set_template (g.m, t, tw, th, tw, 1) != KCONV_OK
      || kmatch_search (g.m, im, NULL, 1, &g.best, &g.n, NULL) != KCONV_OK) {
    printf ("  on CUDA: search failed: %s\n", kconv_last_error ());
    kmatch_free (g.m);
    return;
  }
  *opaque_ms = bench_time_ms (run_search, &g, budget, 9);
  printf ("%-34s %9.3f %9.1f %4d,%-4d   (CUDA, upload from %s memory "
      "included; %.1fx the CPU)\n", "  on CUDA", *opaque_ms,
      work / (*opaque_ms * 1e6), g.best.x, g.best.y,
      pinned ? "pinned" : "pageable", cpu_ms / *opaque_ms);
  /* the same template with transparent corners (a disc counts) */
  uint8_t *disc = malloc ((size_t) tw * th);
  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw; x++) {
      const int dx = 2 * x - tw + 1, dy = 2 * y - th + 1;
      disc[y * tw + x] = dx * dx + dy * dy <= tw * th;
    }
  if (kmatch_set_template_mask (g.m, disc, tw) == KCONV_OK) {
    *masked_ms = bench_time_ms (run_search, &g, budget, 9);
    printf ("%-34s %9.3f %9s %4d,%-4d   (CUDA, transparent corners: %.2fx "
        "the opaque template's time)\n", "  on CUDA, masked", *masked_ms, "",
        g.best.x, g.best.y, *masked_ms / *opaque_ms);
  }
  free (disc);
  kmatch_free (g.m);
}

/* One case: the CPU, OpenCV, and where a GPU is usable the CUDA matcher and
 * NPP, on the same frame and template (planted at px, py). */
static void
bench_case (const BenchArgs * args, const char *name, const uint8_t * pixels,
    int w, int h, const uint8_t * t, int tw, int th, int px, int py)
{
  const int reps = args->quick || w > 2000 ? 3 : 9;
  const double budget = args->quick ? 300 : 1500;
  /* pinned where CUDA is usable, as kpatternmatch's pool gives it */
  int pinned;
  uint8_t *frame = kconv_host_alloc ((size_t) w * h, &pinned);
  memcpy (frame, pixels, (size_t) w * h);

  KConvOptions opt = { KCONV_BACKEND_CPU, args->threads, -1 };
  KConvImage im = { frame, w, h, w, 1, 1, {0} };
  Search cpu = { NULL, &im, {-1, -1, 0}, 0, NULL };
  kmatch_new (&opt, &cpu.m);
  kmatch_set_template (cpu.m, t, tw, th, tw, 1);
  const double ms = bench_time_ms (run_search, &cpu, budget, reps);
  const double work = (double) (w - tw + 1) * (h - th + 1) * tw * th;
  printf ("%-34s %9.1f %9.1f %4d,%-4d%s", name, ms, work / (ms * 1e6),
      cpu.best.x, cpu.best.y, cpu.best.x == px && cpu.best.y == py ? " " : "*");
  /* the same template with transparent corners (a disc counts) */
  uint8_t *disc = malloc ((size_t) tw * th);
  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw; x++) {
      const int dx = 2 * x - tw + 1, dy = 2 * y - th + 1;
      disc[y * tw + x] = dx * dx + dy * dy <= tw * th;
    }
  Search corners = cpu;
  corners.m = NULL;
  kmatch_new (&opt, &corners.m);
  kmatch_set_template (corners.m, t, tw, th, tw, 1);
  kmatch_set_template_mask (corners.m, disc, tw);
  const double masked_ms = bench_time_ms (run_search, &corners, budget, reps);
  kmatch_free (corners.m);
  free (disc);
  /* every position in full, as before pruning (one run where that is long,
   * none with --quick: seconds on a CPU) */
  double all_ms = -1;
  if (!args->quick || work <= 1e11) {
    Search all = cpu;
    all.map = malloc (sizeof (uint64_t) * (w - tw + 1) * (h - th + 1));
    all_ms = bench_time_ms (run_search, &all, budget, work > 1e11 ? 1 : reps);
    free (all.map);
  }
  printf (" %9.1f %9.1f", masked_ms, all_ms);
  double peer = -1, npp = -1, cuda = -1, masked = -1;
#ifdef KCONV_BENCH_OPENCV
  OpencvSearch o = { frame, t, w, h, tw, th, -1, -1 };
  peer = bench_time_ms (run_opencv, &o, budget, reps);
  printf (" %10.1f %7.2fx %d,%d", peer, peer / ms, o.x, o.y);
#endif
  printf ("\n");
  if (kconv_backend_available (KCONV_BACKEND_CUDA)) {
    bench_cuda (t, tw, th, &im, ms, work, pinned, budget, &cuda, &masked);
#ifdef KCONV_BENCH_NPP
    /* NPP: device-resident frame and template (no upload counted) */
    uint8_t *df, *dt;
    cudaMalloc ((void **) &df, (size_t) w * h);
    cudaMalloc ((void **) &dt, (size_t) tw * th);
    cudaMemcpy (df, frame, (size_t) w * h, cudaMemcpyHostToDevice);
    cudaMemcpy (dt, t, (size_t) tw * th, cudaMemcpyHostToDevice);
    NppSearch ns = { df, dt, w, h, tw, th, -1, -1 };
    if (peer_npp_match (df, w, h, dt, tw, th, &ns.x, &ns.y, NULL) == 0) {
      npp = bench_time_ms (run_npp, &ns, budget, 5);
      printf ("%-34s %9.3f %9s %4d,%-4d   (NPP SqrDistanceValid_Norm + "
          "MinIndx, device-resident)\n", "  NPP", npp, "", ns.x, ns.y);
    } else {
      printf ("  NPP: failed\n");
    }
    peer_npp_match_free ();
    cudaFree (df);
    cudaFree (dt);
#endif
  }
  bench_csv_row (args, "%s,%.3f,%.3f,%.3f,%.1f,%.4f,%.4f,%.3f,%.4f", name,
      ms, masked_ms, all_ms, work / (ms * 1e6), cuda, masked, peer, npp);
  fflush (stdout);
  kmatch_free (cpu.m);
  kconv_host_free (frame, pinned);
}

/* The template at (px, py) of frame, with noise of +-noise added. */
static uint8_t *
cut_template (const uint8_t * frame, int w, int tw, int th, int px, int py,
    int noise)
{
  uint8_t *t = malloc ((size_t) tw * th);
  for (int y = 0; y < th; y++)
    for (int x = 0; x < tw; x++) {
      int v = frame[(size_t) (py + y) * w + px + x];
      if (noise)
        v += rand () % (2 * noise + 1) - noise;
      t[y * tw + x] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
    }
  return t;
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
          BENCH_ONLY | BENCH_PHOTOS,
          "case,kconv_cpu_ms,kconv_cpu_masked_ms,kconv_cpu_exhaustive_ms,gdiff_s,"
          "kconv_cuda_ms,kconv_cuda_masked_ms,opencv_ms,npp_ms", &args))
    return 2;
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (args.threads > 0 ? args.threads : -1);
  printf ("peer: OpenCV %s cv::matchTemplate TM_SQDIFF, same threads\n",
      peer_opencv_version ());
#else
  printf ("peer: none (built without OpenCV)\n");
#endif
  printf ("\n%-34s %9s %9s %8s  %9s %9s %10s %8s %s\n", "case", "kconv ms",
      "Gdiff/s", "found", "masked", "all ms", "opencv ms", "speedup",
      "opencv found");
  printf ("(Gdiff/s: positions x template pixels a second; * after found: "
      "not where the template was cut; masked: the template's corners "
      "transparent (a disc counts); all: every position summed in full, "
      "-1 where --quick left it out)\n");
  srand (3);
  /* random noise, the template cut from it with noise of +-3, then cut
   * from other noise (absent: nothing prunes, the worst case) */
  for (size_t c = 0; c < 2 * sizeof cases / sizeof cases[0]; c++) {
    const int *k = cases[c / 2], absent = c % 2;
    int w = k[0], h = k[1], tw = k[2], th = k[3];
    char name[64];
    snprintf (name, sizeof name, "noise%s %dx%d / %dx%d",
        absent ? ", absent" : "", w, h, tw, th);
    if (!bench_selected (&args, name))
      continue;
    uint8_t *frame = malloc ((size_t) w * h);
    for (size_t i = 0; i < (size_t) w * h; i++)
      frame[i] = (uint8_t) (rand () >> 4);
    int px = w / 3 + 7, py = h / 2 + 3;
    uint8_t *t = cut_template (frame, w, tw, th, px, py, 3);
    for (int i = 0; absent && i < tw * th; i++)
      t[i] = (uint8_t) (rand () >> 4);
    bench_case (&args, name, frame, w, h, t, tw, th, absent ? -1 : px, py);
    free (frame);
    free (t);
  }
  /* natural photographs (tests/photos.sh), templates cut with noise +-3 */
  static const char *photos[] = { "camera", "astronaut", "coffee", "chelsea" };
  for (size_t p = 0; args.photos && p < sizeof photos / sizeof photos[0]; p++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int w = cases[c][0], h = cases[c][1], tw = cases[c][2], th = cases[c][3];
      char name[64];
      snprintf (name, sizeof name, "%s %dx%d / %dx%d", photos[p], w, h, tw, th);
      if (!bench_selected (&args, name))
        continue;
      uint8_t *frame = photo_load (args.photos, photos[p], w, h, 1);
      if (!frame) {
        printf ("%-34s (no %s/%s-%dx%d.pgm: run tests/photos.sh %s)\n",
            name, args.photos, photos[p], w, h, args.photos);
        continue;
      }
      int px = w * (2 + (int) p) / 7, py = h * (4 - (int) p % 3) / 9;
      uint8_t *t = cut_template (frame, w, tw, th, px, py, 3);
      bench_case (&args, name, frame, w, h, t, tw, th, px, py);
      free (frame);
      free (t);
    }
  bench_args_clear (&args);
  return 0;
}
