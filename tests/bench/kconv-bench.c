/* kconv: CPU benchmark, with OpenCV timed on the same frames in the same run
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kconv-bench [--threads N] [--quick] [--csv FILE] [--only TEXT]
 *               [--sizes N,N,...]     kernel sizes (default 3,5,7,15,31)
 *
 * Times the core (no GStreamer) on 1080p and 4K RGBA and grey frames of
 * random pixels, for arbitrary float kernels and gaussians of several sizes,
 * and two exact integer kernels: the named edge and boxes (cv::blur beside
 * them, which keeps running sums).
 * Each row: median ms over the repetitions, Mpix/s, GMAC/s (multiply-adds
 * the direct formula needs: pixels x channels x taps), and OpenCV's median
 * and the ratio opencv / kconv (> 1: kconv is faster).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kconv.h"
#include "kconv-matrix.h"
#include "bench-harness.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_OPENCV
#include "bench-peer-opencv.h"
#endif

typedef struct
{
  int width, height, channels;  /* 4 = RGBA (alpha passes through) */
  uint8_t *src, *dst, *peer_dst;
  float *weights;               /* size x size */
  float g1d[KCONV_MAX_KERNEL_SIZE];
  int size, separable, box;
  KConvFilter *filter;
  KConvImage in, out;
} Case;

static void
run_kconv (void *p)
{
  Case *c = p;
  if (kconv_filter_run (c->filter, &c->in, &c->out) != KCONV_OK) {
    fprintf (stderr, "kconv_filter_run failed\n");
    exit (1);
  }
}

#ifdef KCONV_BENCH_OPENCV
static void
run_opencv (void *p)
{
  Case *c = p;
  if (c->box)
    peer_opencv_box (c->src, c->peer_dst, c->width, c->height, c->channels,
        c->size);
  else if (c->separable)
    peer_opencv_sep_filter2d (c->src, c->peer_dst, c->width, c->height,
        c->channels, c->g1d, c->size);
  else
    peer_opencv_filter2d (c->src, c->peer_dst, c->width, c->height,
        c->channels, c->weights, c->size, c->size);
}
#endif

typedef enum
{ KIND_ARBITRARY, KIND_GAUSSIAN, KIND_EDGE, KIND_BOX } Kind;

static void
bench_case (const BenchArgs * args, int width, int height, int channels,
    int size, Kind kind, double budget_ms)
{
  static const char *kind_names[] = { "arbitrary", "gaussian", "edge", "box" };
  const int gaussian = kind == KIND_GAUSSIAN;
  char name[64];
  snprintf (name, sizeof name, "%dx%d %s %s %dx%d", width, height,
      channels == 4 ? "RGBA" : channels == 3 ? "RGB" : "GRAY8",
      kind_names[kind], size, size);
  if (!bench_selected (args, name))
    return;
  Case c = { width, height, channels };
  size_t bytes = (size_t) width * height * channels;
  c.src = malloc (bytes);
  c.dst = malloc (bytes);
  c.peer_dst = malloc (bytes);
  c.size = size;
  c.separable = gaussian;
  for (size_t i = 0; i < bytes; i++)
    c.src[i] = (uint8_t) (rand () >> 7);

  int rows, cols;
  c.box = kind == KIND_BOX;
  if (kind == KIND_EDGE || kind == KIND_BOX) {
    c.weights = kconv_named_kernel (kind == KIND_EDGE ? KCONV_NAMED_EDGE :
        KCONV_NAMED_BOX, size, 0, &rows, &cols);
  } else if (gaussian) {
    c.weights = kconv_named_kernel (KCONV_NAMED_GAUSSIAN, size, 0, &rows,
        &cols);
    double sum = 0;
    for (int i = 0; i < size; i++)
      sum += c.weights[(size / 2) * size + i];
    for (int i = 0; i < size; i++)      /* the 2D kernel's 1D factor */
      c.g1d[i] = (float) (c.weights[(size / 2) * size + i] / sum);
  } else {
    /* arbitrary weights summing to about 1: not separable, not integer */
    c.weights = malloc (sizeof (float) * size * size);
    for (int i = 0; i < size * size; i++)
      c.weights[i] = (float) ((rand () % 2001) / 1000.0 - 0.8) /
          (float) (size * size) * 5.f;
  }

  /* boxes: the automatic divisor (the count of weights), a mean */
  KConvKernel k = { size, size, c.weights, c.box ? 0.0 : 1.0, 0.0, 0 };
  KConvOptions opt = { KCONV_BACKEND_CPU, args->threads, -1 };
  if (kconv_filter_new (&k, KCONV_BORDER_REFLECT, &opt, &c.filter) != KCONV_OK) {
    fprintf (stderr, "kconv_filter_new failed\n");
    exit (1);
  }
  KConvImage im = { c.src, width, height, (ptrdiff_t) width * channels,
    channels, channels == 4 ? 3 : channels, {0, 1, 2, 3}
  };
  c.in = im;
  c.out = im;
  c.out.data = c.dst;

  double ms = bench_time_ms (run_kconv, &c, budget_ms, 31);
  double mpix = (double) width * height / (ms * 1e3);
  double gmac = (double) width * height * c.in.n_channels * size * size /
      (ms * 1e6);
  printf ("%-40s %-9s %9.2f %9.1f %8.1f", name,
      kconv_path_name (kconv_filter_path (c.filter)), ms, mpix, gmac);

#ifdef KCONV_BENCH_OPENCV
  double peer = bench_time_ms (run_opencv, &c, budget_ms, 31);
  /* agreement check: OpenCV rounds its own way; report the worst gap */
  int worst = 0;
  for (size_t i = 0; i < bytes; i++) {
    if (channels == 4 && i % 4 == 3)
      continue;
    int d = abs ((int) c.dst[i] - (int) c.peer_dst[i]);
    worst = d > worst ? d : worst;
  }
  printf (" %9.2f %7.2fx %5d", peer, peer / ms, worst);
#else
  double peer = -1;
#endif
  printf ("\n");
  bench_csv_row (args, "%s,%s,%.3f,%.1f,%.1f,%.3f", name,
      kconv_path_name (kconv_filter_path (c.filter)), ms, mpix, gmac, peer);
  fflush (stdout);

  kconv_filter_free (c.filter);
  free (c.weights);
  free (c.src);
  free (c.dst);
  free (c.peer_dst);
}

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  BenchArgs args;
  /* --sizes is this benchmark's own; the rest are the harness's */
  int sizes[16] = { 3, 5, 7, 15, 31 }, n_sizes = 5;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--sizes")) {
      n_sizes = 0;
      for (char *t = strtok (argv[i + 1], ","); t && n_sizes < 16;
          t = strtok (NULL, ","))
        if (atoi (t) >= 1 && atoi (t) <= KCONV_MAX_KERNEL_SIZE)
          sizes[n_sizes++] = atoi (t);
      memmove (argv + i, argv + i + 2, (argc - i - 1) * sizeof *argv);
      argc -= 2;
      break;
    }
  if (n_sizes == 0) {
    fprintf (stderr, "--sizes: kernel sizes from 1 to %d, comma-separated\n",
        KCONV_MAX_KERNEL_SIZE);
    return 2;
  }
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV |
          BENCH_ONLY, "case,path,kconv_ms,mpix_s,gmac_s,opencv_ms", &args))
    return 2;
  const int threads = args.threads > 0 ? args.threads : 0;
  srand (1);
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (threads > 0 ? threads : -1);
  printf ("peer: OpenCV %s cv::filter2D / cv::sepFilter2D, same threads\n",
      peer_opencv_version ());
#else
  printf ("peer: none (built without OpenCV)\n");
#endif
  if (threads > 0)
    printf ("threads: %d\n\n", threads);
  else
    printf ("threads: one per core\n\n");
  printf ("%-40s %-9s %9s %9s %8s", "case", "path", "kconv ms", "Mpix/s",
      "GMAC/s");
#ifdef KCONV_BENCH_OPENCV
  printf (" %9s %8s %5s", "opencv ms", "speedup", "|d|");
#endif
  printf ("\n");

  static const int frames[][2] = { {1920, 1080}, {3840, 2160} };
  for (int f = 0; f < (args.quick ? 1 : 2); f++)
    for (int ch = 4; ch >= 1; ch -= ch == 4 ? 1 : 2)    /* 4, 3, 1 */
      for (Kind kind = KIND_ARBITRARY; kind <= KIND_BOX; kind++)
        for (int s = 0; s < n_sizes; s++)
          if (kind != KIND_EDGE || sizes[s] == 3)
            bench_case (&args, frames[f][0], frames[f][1], ch, sizes[s], kind,
                args.quick ? 300 : 1500);
  bench_args_clear (&args);
  return 0;
}
