/* kconv: filtering two regions of a frame against the whole frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kconv-regions-bench [--threads N] [--quick] [--csv FILE] [--only TEXT]
 *                       [--photos DIR]
 *
 * A 1920x1080 RGBA frame (the astronaut photograph where --photos has it),
 * kernels from 3x3 to 31x31: kconv_filter_run over the whole frame against
 * kconv_filter_run_rects over two 200x200 regions (kconvfilter regions=roi
 * with two metas: in place, the rest untouched), in one run, on the CPU
 * and, where there is one, on CUDA: frames in host memory (what a pipeline
 * in system memory does: the windows cross the bus, not the frame) and,
 * where built with the CUDA runtime (KCONV_BENCH_CUDA), frames in device
 * memory (GStreamer's CUDA memory).  Medians of three rounds; the ratio
 * regions / whole frame, and the same call with two 1x1 regions: the cost
 * that does not follow the area.  The KCONV_* tuning variables apply
 * (tests/tuning-env.h): KCONV_CUDA_STRATEGY=NAME times one CUDA path.
 *
 * With frames in device memory a second line gives the parts of a 1x1
 * region's cost, each with the wait after it: its window filtered alone
 * (the window the region path makes: the rectangle grown by the kernel's
 * reach and a pixel), two such windows one after the other, its pixel
 * copied back, and a wait with nothing queued.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-matrix.h"
#include "bench-harness.h"
#include "photo.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

#define W 1920
#define H 1080

static const KConvRect two[2] = { {400, 300, 200, 200}, {1300, 600, 200, 200} };

/* the same call with 1x1 regions: what the region path costs whatever
 * the area (the column "two 1x1") */
static const KConvRect dots[2] = { {500, 400, 1, 1}, {1400, 700, 1, 1} };

typedef struct
{
  KConvFilter *f;
  KConvImage src, dst, frame;
  int on_device;
  const KConvRect *rects;
} Case;

static void
die (const char *what)
{
  fprintf (stderr, "%s: %s\n", what, kconv_last_error ());
  exit (1);
}

static void
whole (void *p)
{
  Case *c = p;
  KConvStatus st = c->on_device ? kconv_filter_run_device (c->f, &c->src,
      &c->dst, NULL) : kconv_filter_run (c->f, &c->src, &c->dst);
  if (st == KCONV_OK && c->on_device)
    st = kconv_device_sync (NULL);
  if (st != KCONV_OK)
    die ("whole frame");
}

static void
regions (void *p)
{
  Case *c = p;
  KConvStatus st = c->on_device ? kconv_filter_run_rects_device (c->f,
      &c->frame, &c->frame, c->rects, 2, NULL) :
      kconv_filter_run_rects (c->f, &c->frame, &c->frame, c->rects, 2);
  if (st == KCONV_OK && c->on_device)
    st = kconv_device_sync (NULL);
  if (st != KCONV_OK)
    die ("regions");
}

#ifdef KCONV_BENCH_CUDA
/* the parts of a region's cost in device memory (the second line) */
typedef struct
{
  Case *c;
  KConvImage window, scratch;
  int n;
} Part;

static void
window_alone (void *p)
{
  Part *part = p;
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < part->n && st == KCONV_OK; i++)
    st = kconv_filter_run_device (part->c->f, &part->window, &part->scratch,
        NULL);
  if (st == KCONV_OK)
    st = kconv_device_sync (NULL);
  if (st != KCONV_OK)
    die ("a window");
}

static void
copy_alone (void *p)
{
  Part *part = p;
  const KConvImage *im = &part->c->frame;
  if (kconv_device_copy (im->data, im->stride, part->scratch.data,
          part->scratch.stride, im->pixel_stride, 1, NULL) != KCONV_OK
      || kconv_device_sync (NULL) != KCONV_OK)
    die ("a copy");
}

static void
wait_alone (void *p)
{
  (void) p;
  if (kconv_device_sync (NULL) != KCONV_OK)
    die ("a wait");
}
#endif

static double
median3 (BenchFunc fn, void *ctx, double budget)
{
  double t[3];
  for (int r = 0; r < 3; r++)
    t[r] = bench_time_ms (fn, ctx, budget, 60);
  return bench_median (t, 3);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  tuning_from_environment ();
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV
          | BENCH_ONLY | BENCH_PHOTOS, "backend,memory,kernel,whole_ms,"
          "regions_ms,ratio,two_1x1_ms", &args) != 0)
    return 2;
  const size_t bytes = (size_t) W * H * 4;
  uint8_t *rgb = args.photos ? photo_load (args.photos, "astronaut", W, H,
      3) : NULL;
  int pinned[3];
  uint8_t *in = kconv_host_alloc (bytes, &pinned[0]);
  uint8_t *out = kconv_host_alloc (bytes, &pinned[1]);
  uint8_t *frame = kconv_host_alloc (bytes, &pinned[2]);
  for (size_t i = 0; i < (size_t) W * H; i++)
    for (int c = 0; c < 4; c++)
      in[i * 4 + c] = c == 3 ? 255 : rgb ? rgb[i * 3 + c] : (uint8_t) (i * 7
          + c * 13);
  memcpy (frame, in, bytes);
  free (rgb);
  printf ("1920x1080 RGBA (%s), two 200x200 regions against the whole "
      "frame; ms\n", args.photos ? "astronaut" : "a pattern");
  printf ("%-10s %-7s %-22s %10s %10s %7s %9s\n", "backend", "memory",
      "kernel", "whole", "regions", "ratio", "two 1x1");
  static const struct
  {
    const char *name;
    KConvNamedKernel k;
    int size;
  } kernels[] = {
    {"edge 3x3", KCONV_NAMED_EDGE, 3},
    {"box 15x15", KCONV_NAMED_BOX, 15},
    {"gaussian 31x31", KCONV_NAMED_GAUSSIAN, 31},
  };
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  for (int b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b]))
      continue;
    for (int on_device = 0; on_device <= (backends[b] == KCONV_BACKEND_CUDA);
        on_device++) {
#ifndef KCONV_BENCH_CUDA
      if (on_device)
        continue;
#endif
      for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char label[128];
        const char *bname = kconv_backend_info (backends[b])->name;
        const char *memory = on_device ? "device" : "host";
        snprintf (label, sizeof label, "%s %s %s", bname, memory,
            kernels[k].name);
        if (!bench_selected (&args, label))
          continue;
        int rows, cols;
        float *w = kconv_named_kernel (kernels[k].k, kernels[k].size, 0,
            &rows, &cols);
        const KConvKernel kk = { cols, rows, w, 0, 0,
          kconv_named_kernel_is_signed (kernels[k].k)
        };
        const KConvOptions opt = { backends[b], args.threads, -1 };
        Case c = { NULL };
        if (kconv_filter_new (&kk, KCONV_BORDER_REFLECT, &opt, &c.f) !=
            KCONV_OK)
          die ("kconv_filter_new");
        free (w);
        const KConvImage im = { in, W, H, W * 4, 4, 3, {0, 1, 2} };
        c.src = c.dst = c.frame = im;
        c.dst.data = out;
        c.frame.data = frame;
        c.on_device = on_device;
#ifdef KCONV_BENCH_CUDA
        void *d[3] = { NULL, NULL, NULL };
        if (on_device) {
          for (int i = 0; i < 3; i++)
            if (cudaMalloc (&d[i], bytes) != cudaSuccess
                || cudaMemcpy (d[i], in, bytes, cudaMemcpyHostToDevice) !=
                cudaSuccess)
              die ("device frames");
          c.src.data = d[0];
          c.dst.data = d[1];
          c.frame.data = d[2];
        }
#endif
        const double budget = args.quick ? 200 : 1000;
        const double tw = median3 (whole, &c, budget);
        c.rects = two;
        const double tr = median3 (regions, &c, budget);
        c.rects = dots;
        const double td = median3 (regions, &c, budget);
        printf ("%-10s %-7s %-22s %10.3f %10.3f %6.1f%% %9.3f\n", bname,
            memory, kernels[k].name, tw, tr, 100 * tr / tw, td);
        bench_csv_row (&args, "%s,%s,%s,%.4f,%.4f,%.4f,%.4f", bname, memory,
            kernels[k].name, tw, tr, tr / tw, td);
#ifdef KCONV_BENCH_CUDA
        if (on_device) {
          Part part = { &c };
          KConvRect r = dots[0];
          r.x -= cols / 2 + 1;
          r.y -= rows / 2 + 1;
          r.width += cols + 1;
          r.height += rows + 1;
          part.window = part.scratch = c.frame;
          part.window.data += (ptrdiff_t) r.y * c.frame.stride + r.x * 4;
          part.window.width = part.scratch.width = r.width;
          part.window.height = part.scratch.height = r.height;
          part.scratch.data = d[1];
          part.scratch.stride = r.width * 4;
          part.n = 1;
          const double t1 = median3 (window_alone, &part, budget);
          part.n = 2;
          const double t2 = median3 (window_alone, &part, budget);
          const double tc = median3 (copy_alone, &part, budget);
          const double ts = median3 (wait_alone, &part, budget);
          printf ("%-18s parts of a 1x1 region (%dx%d window): window "
              "%.4f, two windows %.4f, its pixel copied %.4f, a wait alone "
              "%.4f\n", "", r.width, r.height, t1, t2, tc, ts);
        }
        for (int i = 0; i < 3; i++)
          if (d[i])
            cudaFree (d[i]);
#endif
        kconv_filter_free (c.f);
      }
    }
  }
  kconv_host_free (in, pinned[0]);
  kconv_host_free (out, pinned[1]);
  kconv_host_free (frame, pinned[2]);
  bench_args_clear (&args);
  return 0;
}
