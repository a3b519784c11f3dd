/* kconv: template matching benchmark, with OpenCV on the same frames
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-bench [--threads N] [--quick]
 *
 * Exact exhaustive SAD search (the core, no GStreamer) on grey frames of
 * random pixels with a planted template; OpenCV's matchTemplate (TM_SQDIFF,
 * which it computes through the DFT) on the same data and threads is the
 * peer.  Each row: median ms, the work (positions x template pixels) in
 * G differences per second, OpenCV's median and the ratio.  Where a GPU is
 * usable, the CUDA matcher too: frame uploaded from host memory each time,
 * only the best position back (what the element does per frame).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kmatch.h"
#include "bench-util.h"
#ifdef KCONV_BENCH_OPENCV
#include "bench-peer-opencv.h"
#endif
#ifdef KCONV_BENCH_NPP
#include <cuda_runtime_api.h>
#include "bench-peer-npp.h"
#endif

int
main (int argc, char **argv)
{
  int threads, quick;
  if (bench_parse_args (argc, argv, &threads, &quick))
    return 2;
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (threads > 0 ? threads : -1);
  printf ("peer: OpenCV %s cv::matchTemplate TM_SQDIFF, same threads\n",
      peer_opencv_version ());
#else
  printf ("peer: none (built without OpenCV)\n");
#endif
  static const int cases[][4] = {
    {1920, 1080, 64, 64}, {1920, 1080, 16, 16}, {2500, 2500, 250, 250},
  };
  printf ("\n%-26s %9s %9s %8s %10s %8s %s\n", "case", "kconv ms", "Gdiff/s",
      "found", "opencv ms", "speedup", "opencv found");
  srand (3);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int w = cases[c][0], h = cases[c][1], tw = cases[c][2], th = cases[c][3];
    int reps = quick || w > 2000 ? 3 : 9;
    /* pinned where CUDA is usable, as kpatternmatch's pool gives it */
    int pinned;
    uint8_t *frame = kconv_host_alloc ((size_t) w * h, &pinned);
    uint8_t *t = malloc ((size_t) tw * th);
    for (size_t i = 0; i < (size_t) w * h; i++)
      frame[i] = (uint8_t) (rand () >> 4);
    int px = w / 3 + 7, py = h / 2 + 3;
    for (int y = 0; y < th; y++)
      for (int x = 0; x < tw; x++)
        t[y * tw + x] = frame[(py + y) * w + px + x];

    KConvOptions opt = { KCONV_BACKEND_CPU, threads, -1 };
    KMatch *m;
    kmatch_new (&opt, &m);
    kmatch_set_template (m, t, tw, th, tw, 1);
    KConvImage im = { frame, w, h, w, 1, 1, {0} };
    KMatchPosition best;
    int n;
    double times[9];
    for (int r = 0; r < reps; r++) {
      double t0 = bench_now_ms ();
      kmatch_search (m, &im, NULL, 1, &best, &n, NULL);
      times[r] = bench_now_ms () - t0;
    }
    double ms = bench_median (times, reps);
    double work = (double) (w - tw + 1) * (h - th + 1) * tw * th;
    char name[64];
    snprintf (name, sizeof name, "%dx%d grey / %dx%d", w, h, tw, th);
    printf ("%-26s %9.1f %9.1f %4d,%-4d", name, ms, work / (ms * 1e6), best.x,
        best.y);
#ifdef KCONV_BENCH_OPENCV
    int ox, oy;
    for (int r = 0; r < reps; r++) {
      double t0 = bench_now_ms ();
      peer_opencv_match_sqdiff (frame, w, h, t, tw, th, &ox, &oy);
      times[r] = bench_now_ms () - t0;
    }
    double peer = bench_median (times, reps);
    printf (" %10.1f %7.2fx %d,%d", peer, peer / ms, ox, oy);
#endif
    printf ("\n");
    if (kconv_backend_available (KCONV_BACKEND_CUDA)) {
      KConvOptions gopt = { KCONV_BACKEND_CUDA, 0, -1 };
      KMatch *g;
      KMatchPosition gb = { -1, -1, 0 };
      if (kmatch_new (&gopt, &g) == KCONV_OK
          && kmatch_set_template (g, t, tw, th, tw, 1) == KCONV_OK) {
        if (kmatch_search (g, &im, NULL, 1, &gb, &n, NULL) != KCONV_OK) {
          printf ("  on CUDA: search failed\n");
          kmatch_free (g);
          continue;
        }
        double gt[9];
        for (int r = 0; r < 9; r++) {
          double t0 = bench_now_ms ();
          kmatch_search (g, &im, NULL, 1, &gb, &n, NULL);
          gt[r] = bench_now_ms () - t0;
        }
        double gms = bench_median (gt, 9);
        printf ("%-26s %9.3f %9.1f %4d,%-4d   (CUDA, upload from %s memory "
            "included; %.1fx the CPU)\n", "  on CUDA", gms, work / (gms * 1e6),
            gb.x, gb.y, pinned ? "pinned" : "pageable", ms / gms);
        /* the same template with transparent corners (a disc counts) */
        uint8_t *disc = malloc ((size_t) tw * th);
        for (int y = 0; y < th; y++)
          for (int x = 0; x < tw; x++) {
            const int dx = 2 * x - tw + 1, dy = 2 * y - th + 1;
            disc[y * tw + x] = dx * dx + dy * dy <= tw * th;
          }
        if (kmatch_set_template_mask (g, disc, tw) == KCONV_OK) {
          for (int r = 0; r < 9; r++) {
            double t0 = bench_now_ms ();
            kmatch_search (g, &im, NULL, 1, &gb, &n, NULL);
            gt[r] = bench_now_ms () - t0;
          }
          double mms = bench_median (gt, 9);
          printf ("%-26s %9.3f %9s %4d,%-4d   (CUDA, transparent corners: "
              "%.2fx the opaque template's time)\n", "  on CUDA, masked", mms,
              "", gb.x, gb.y, mms / gms);
        }
        free (disc);
      }
      kmatch_free (g);
#ifdef KCONV_BENCH_NPP
      /* NPP: device-resident frame and template (no upload counted) */
      uint8_t *df, *dt;
      int nx = -1, ny = -1;
      cudaMalloc ((void **) &df, (size_t) w * h);
      cudaMalloc ((void **) &dt, (size_t) tw * th);
      cudaMemcpy (df, frame, (size_t) w * h, cudaMemcpyHostToDevice);
      cudaMemcpy (dt, t, (size_t) tw * th, cudaMemcpyHostToDevice);
      if (peer_npp_match (df, w, h, dt, tw, th, &nx, &ny, NULL) == 0) {
        double nt[5];
        for (int r = 0; r < 5; r++) {
          double t0 = bench_now_ms ();
          peer_npp_match (df, w, h, dt, tw, th, &nx, &ny, NULL);
          nt[r] = bench_now_ms () - t0;
        }
        printf ("%-26s %9.3f %9s %4d,%-4d   (NPP SqrDistanceValid_Norm + "
            "MinIndx, device-resident)\n", "  NPP", bench_median (nt, 5), "",
            nx, ny);
      } else {
        printf ("  NPP: failed\n");
      }
      peer_npp_match_free ();
      cudaFree (df);
      cudaFree (dt);
#endif
    }
    fflush (stdout);
    kmatch_free (m);
    kconv_host_free (frame, pinned);
    free (t);
  }
  return 0;
}
