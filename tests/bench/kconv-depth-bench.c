/* kconv: 16-bit samples against 8-bit ones, on each backend this build runs
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kconv-depth-bench [--threads N] [--quick] [--csv FILE] [--only TEXT]
 *
 * The same kernel on the same frame of a photograph-like texture (random
 * values smoothed along rows) held as 8-bit, 10-bit and 16-bit samples:
 * grey and RGBA (alpha passing through) at 4K.  The three depths take
 * turns over five rounds.  Each row: the median ms of the 8-bit run and of
 * the deeper one, the median of the rounds' ratios (deep / 8-bit) and
 * their range; OpenCV's filter2D on CV_16U beside the CPU's rows, in the
 * same run (0: not timed), and the 8-bit run's path.
 * CUDA's rows are device-resident (frames in device memory, no copies)
 * where the build has the CUDA backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-matrix.h"
#include "bench-harness.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_OPENCV
#include "bench-peer-opencv.h"
#endif
#ifdef KCONV_BENCH_CUDA
#include <cuda_runtime_api.h>

/* One convolution of device images, waited for */
static void
run_device (void *p)
{
  BenchFilterRun *r = p;
  if (kconv_filter_run_device (r->filter, &r->src, &r->dst, NULL) != KCONV_OK
      || kconv_device_sync (NULL) != KCONV_OK) {
    fprintf (stderr, "kconv_filter_run_device failed: %s\n",
        kconv_last_error ());
    exit (1);
  }
}
#endif

typedef struct
{
  const char *name;
  KConvNamedKernel kernel;
  int size;
} KernelCase;

static const KernelCase kernels[] = {
  {"edge 3x3", KCONV_NAMED_EDGE, 3},
  {"gaussian 3x3", KCONV_NAMED_GAUSSIAN, 3},
  {"gaussian 31x31", KCONV_NAMED_GAUSSIAN, 31},
  {"box 31x31", KCONV_NAMED_BOX, 31},
};

#ifdef KCONV_BENCH_OPENCV
typedef struct
{
  const uint16_t *src;
  uint16_t *dst;
  int width, height, channels, rows, cols;
  const float *w;
} Peer16;

static void
run_peer16 (void *p)
{
  Peer16 *c = p;
  peer_opencv_filter2d_16u (c->src, c->dst, c->width, c->height, c->channels,
      c->w, c->rows, c->cols);
}
#endif

/* A frame's samples: smooth along rows with detail, at `depth` bits (8:
 * bytes) */
static void
fill (uint8_t * data, size_t n_samples, int depth)
{
  double v = 0.5;
  for (size_t i = 0; i < n_samples; i++) {
    v = 0.9 * v + 0.1 * (rand () / (double) RAND_MAX);
    uint32_t s = (uint32_t) (v * ((1u << depth) - 1));
    if (depth == 8)
      data[i] = (uint8_t) s;
    else {
      data[2 * i] = (uint8_t) s;
      data[2 * i + 1] = (uint8_t) (s >> 8);
    }
  }
}

/* One depth's frames and filter, set up once and timed in rounds */
typedef struct
{
  BenchFilterRun r;
  uint8_t *src, *dst;
  void *d_src, *d_dst;          /* device copies (CUDA) */
  KConvBackend backend;
} DepthRun;

static void
depth_setup (DepthRun * d, KConvBackend backend, const KConvKernel * k,
    int width, int height, int ps8, int nc, int depth, int n_threads,
    char *path, size_t path_size)
{
  const int bytes = depth > 8 ? 2 : 1, ps = ps8 * bytes;
  const size_t n = (size_t) width * height * ps8;
  memset (d, 0, sizeof *d);
  d->backend = backend;
  d->src = aligned_alloc (64, n * bytes);
  d->dst = aligned_alloc (64, n * bytes);
  fill (d->src, n, depth);
  KConvOptions opt = { backend, n_threads, -1 };
  if (kconv_filter_new (k, KCONV_BORDER_REFLECT, &opt, &d->r.filter)
      != KCONV_OK) {
    fprintf (stderr, "kconv_filter_new: %s\n", kconv_last_error ());
    exit (1);
  }
  KConvImage im = { d->src, width, height, (ptrdiff_t) width * ps, ps, nc,
    {0, bytes, 2 * bytes, 3 * bytes}, 0, depth > 8 ? depth : 0
  };
  d->r.src = im;
  d->r.dst = im;
  d->r.dst.data = d->dst;
  /* (copied: the filter's description goes with it) */
  snprintf (path, path_size, "%s", kconv_filter_strategy (d->r.filter));
#ifdef KCONV_BENCH_CUDA
  if (backend == KCONV_BACKEND_CUDA) {
    if (cudaMalloc (&d->d_src, n * bytes) != cudaSuccess
        || cudaMalloc (&d->d_dst, n * bytes) != cudaSuccess
        || cudaMemcpy (d->d_src, d->src, n * bytes, cudaMemcpyHostToDevice)
        != cudaSuccess) {
      fprintf (stderr, "device memory for the frames\n");
      exit (1);
    }
    d->r.src.data = d->d_src;
    d->r.dst.data = d->d_dst;
  }
#endif
}

static double
depth_time (DepthRun * d, double budget)
{
#ifdef KCONV_BENCH_CUDA
  if (d->backend == KCONV_BACKEND_CUDA)
    return bench_time_ms (run_device, &d->r, budget, 101);
#endif
  return bench_time_ms (bench_filter_run, &d->r, budget, 31);
}

static void
depth_clear (DepthRun * d)
{
#ifdef KCONV_BENCH_CUDA
  cudaFree (d->d_src);
  cudaFree (d->d_dst);
#endif
  kconv_filter_free (d->r.filter);
  free (d->src);
  free (d->dst);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  tuning_from_environment ();
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV
          | BENCH_ONLY, "backend,case,depth,ms_8bit,ms_deep,ratio,"
          "ratio_low,ratio_high,opencv_16u_ms", &args))
    return 2;
  static const KConvBackend backends[] = { KCONV_BACKEND_CPU,
    KCONV_BACKEND_CUDA
  };
  static const struct
  {
    const char *name;
    int width, height, ps, nc;
  } frames[] = {
    {"4K GRAY", 3840, 2160, 1, 1},
    {"4K RGBA", 3840, 2160, 4, 3},
  };
  static const int depths[] = { 10, 16 };
  const double budget = args.quick ? 300 : 1500;
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (args.threads);
  printf ("OpenCV %s, filter2D on CV_16U beside the CPU\n",
      peer_opencv_version ());
#endif
  printf ("%-5s %-24s %5s %9s %9s %7s %-11s %10s  %s\n", "", "case", "depth",
      "8-bit ms", "deep ms", "ratio", " (rounds)", "cv16u ms", "8-bit path");
  for (size_t b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b]))
      continue;
    for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++)
      for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char name[96];
        snprintf (name, sizeof name, "%s %s", frames[f].name, kernels[k].name);
        if (args.only && !strstr (name, args.only))
          continue;
        int rows, cols;
        float *w = kconv_named_kernel (kernels[k].kernel, kernels[k].size, 0,
            &rows, &cols);
        KConvKernel kern = { cols, rows, w, 0.0, 0.0,
          kernels[k].kernel == KCONV_NAMED_EDGE
        };
        /* the depths take turns, round after round, so that a drift in
         * the machine's speed falls on all of them alike; each ratio is
         * the median of the rounds' own ratios */
        char path8[256], path[256];
        enum
        { ROUNDS = 5 };
        DepthRun run8, runs[2];
        depth_setup (&run8, backends[b], &kern, frames[f].width,
            frames[f].height, frames[f].ps, frames[f].nc, 8, args.threads,
            path8, sizeof path8);
        for (size_t d = 0; d < 2; d++)
          depth_setup (&runs[d], backends[b], &kern, frames[f].width,
              frames[f].height, frames[f].ps, frames[f].nc, depths[d],
              args.threads, path, sizeof path);
        double t8[ROUNDS], t[2][ROUNDS], ratio[2][ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
          t8[round] = depth_time (&run8, budget / ROUNDS);
          for (size_t d = 0; d < 2; d++) {
            t[d][round] = depth_time (&runs[d], budget / ROUNDS);
            ratio[d][round] = t[d][round] / t8[round];
          }
        }
        const double ms8 = bench_median (t8, ROUNDS);
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
          double lo = ratio[d][0], hi = ratio[d][0];
          for (int round = 1; round < ROUNDS; round++) {
            lo = ratio[d][round] < lo ? ratio[d][round] : lo;
            hi = ratio[d][round] > hi ? ratio[d][round] : hi;
          }
          const double ms = bench_median (t[d], ROUNDS);
          const double rmed = bench_median (ratio[d], ROUNDS);
          double cv = 0;
#ifdef KCONV_BENCH_OPENCV
          if (backends[b] == KCONV_BACKEND_CPU && depths[d] == 16) {
            const size_t n = (size_t) frames[f].width * frames[f].height *
                frames[f].ps;
            uint16_t *s16 = aligned_alloc (64, n * 2), *d16 =
                aligned_alloc (64, n * 2);
            fill ((uint8_t *) s16, n, 16);
            Peer16 p = { s16, d16, frames[f].width, frames[f].height,
              frames[f].ps, rows, cols, w
            };
            cv = bench_time_ms (run_peer16, &p, budget, 31);
            free (s16);
            free (d16);
          }
#endif
          printf ("%-5s %-24s %5d %9.3f %9.3f %7.2f %5.2f-%-5.2f %10.3f  %s\n",
              kconv_backend_name (backends[b]), name, depths[d], ms8, ms,
              rmed, lo, hi, cv, path8);
          if (args.csv)
            fprintf (args.csv, "%s,%s,%d,%.4f,%.4f,%.3f,%.3f,%.3f,%.4f\n",
                kconv_backend_name (backends[b]), name, depths[d], ms8, ms,
                rmed, lo, hi, cv);
          fflush (stdout);
        }
        depth_clear (&run8);
        for (size_t d = 0; d < 2; d++)
          depth_clear (&runs[d]);
        free (w);
      }
  }
  bench_args_clear (&args);
  return 0;
}
