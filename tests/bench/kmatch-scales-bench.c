/* kconv: one template at 15 sizes (kpatternmatch scales=0.5:2:1.1) beside
 * OpenCV's recipe
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kmatch-scales-bench --photos DIR [--threads N] [--quick] [--csv FILE]
 *                       [--only TEXT]
 *
 * Each photograph at 1920x1080 GRAY8; the template is an 80x80 piece of it
 * shrunk to 64x64 (so it lies in the frame at 1.25 times its size), looked
 * for by zncc at the 15 sizes of 0.5:2:1.1, the best of all.  kconv: the
 * sizes made once (kmatch_scale_template, as the element makes them when
 * the template is set: its cost is printed apart), then each frame one
 * pass of kmatch_search_many over the 15 matchers and kmatch_merge_sizes,
 * on the CPU and, where there is one, on CUDA (the frame in host memory,
 * page-locked as a pool of video buffers hands it: its upload counted).
 * OpenCV: the loop users write, cv::resize and
 * matchTemplate(TM_CCOEFF_NORMED) for each size, same threads.  Medians of
 * three rounds; both answers printed (scale and place).  Then how the time
 * grows with the sizes: each size alone, and the first 1, 4, 8 and 15
 * sizes together.
 */
#include <math.h>
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

#define W 1920
#define H 1080
#define T 64
#define PIECE 80
#define PX 900
#define PY 500

typedef struct
{
  KMatch *ms[KMATCH_MAX_SCALES];
  int n, widths[KMATCH_MAX_SCALES], heights[KMATCH_MAX_SCALES];
  double scales[KMATCH_MAX_SCALES];
  KConvImage im;
  KMatchRegion regions[KMATCH_MAX_SCALES];
  KMatchPosition found[KMATCH_MAX_SCALES], best;
  int n_found[KMATCH_MAX_SCALES], best_size;
  const uint8_t *tmpl;
} Case;

static int threads;             /* --threads: kconv's and OpenCV's */

static void
die (const char *what)
{
  fprintf (stderr, "%s: %s\n", what, kconv_last_error ());
  exit (1);
}

/* the sizes' matchers: the template resized once for each */
static void
make_sizes (Case * c, KConvBackend backend, int n)
{
  const KConvOptions opt = { backend, threads, -1 };
  c->n = n;
  for (int i = 0; i < n; i++) {
    int w, h;
    uint8_t *t = kmatch_scale_template (c->tmpl, T, T, 1, c->scales[i], &w,
        &h);
    c->widths[i] = w;
    c->heights[i] = h;
    if (!t || kmatch_new (&opt, &c->ms[i]) != KCONV_OK
        || kmatch_set_method (c->ms[i], KMATCH_METHOD_ZNCC) != KCONV_OK
        || kmatch_set_template (c->ms[i], t, w, h, w, 1) != KCONV_OK)
      die ("a size's matcher");
    free (t);
    c->regions[i] = (KMatchRegion) {
    0, 0, W, H};
  }
}

static void
free_sizes (Case * c)
{
  for (int i = 0; i < c->n; i++)
    kmatch_free (c->ms[i]);
}

static void
make_and_free_sizes (void *p)
{
  Case *c = p;
  make_sizes (c, KCONV_BACKEND_CPU, c->n);
  free_sizes (c);
}

static void
search (void *p)
{
  Case *c = p;
  if (kmatch_search_many (c->ms, c->n, &c->im, 0, 0, c->regions, 1, c->found,
          c->n_found) != KCONV_OK)
    die ("kmatch_search_many");
  kmatch_merge_sizes (c->found, c->n_found, 1, c->widths, c->heights, c->n, 1,
      &c->best, &c->best_size);
}

#ifdef KCONV_BENCH_OPENCV
typedef struct
{
  const Case *c;
  int x, y, size;
  double value;
} Peer;

static void
peer (void *p)
{
  Peer *q = p;
  peer_opencv_match_scales (q->c->im.data, W, H, q->c->tmpl, T, T,
      q->c->scales, q->c->n, &q->x, &q->y, &q->size, &q->value);
}
#endif

static double
median3 (BenchFunc fn, void *ctx, double budget)
{
  double t[3];
  for (int r = 0; r < 3; r++)
    t[r] = bench_time_ms (fn, ctx, budget, 30);
  return bench_median (t, 3);
}

static void
bench_photo (const BenchArgs * args, const char *name, uint8_t * frame,
    const double *scales, int n_scales)
{
  /* the template: the 80x80 piece at (PX, PY) shrunk to 64x64 */
  const KConvImage im = { frame, W, H, W, 1, 1, {0} };
  const KMatchRegion piece = { PX, PY, PIECE, PIECE };
  uint8_t *cut = kmatch_cut_template (&im, &piece, 1);
  int tw, th;
  uint8_t *tmpl = kmatch_scale_template (cut, PIECE, PIECE, 1,
      (double) T / PIECE, &tw, &th);
  free (cut);
  const double budget = args->quick ? 300 : 1500;
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  double cpu_ms = 0;
  for (int b = 0; b < 2; b++) {
    const char *bname = kconv_backend_info (backends[b])->name;
    char label[96];
    snprintf (label, sizeof label, "%s %s", name, bname);
    if (!kconv_backend_available (backends[b]) || !bench_selected (args, label))
      continue;
    Case c = { {NULL}
    };
    c.im = im;
    c.tmpl = tmpl;
    memcpy (c.scales, scales, sizeof c.scales[0] * n_scales);
    make_sizes (&c, backends[b], n_scales);
    const double ms = median3 (search, &c, budget);
    printf ("%-22s %2d sizes %9.3f ms   scale %.3f at %d,%d  zncc %.4f\n",
        label, n_scales, ms, scales[c.best_size], c.best.x, c.best.y,
        c.best.correlation);
    bench_csv_row (args, "%s,%s,%d,%.4f,%.4f,%d,%d", name, bname, n_scales,
        ms, scales[c.best_size], c.best.x, c.best.y);
    if (backends[b] == KCONV_BACKEND_CPU)
      cpu_ms = ms;
    free_sizes (&c);
  }
#ifdef KCONV_BENCH_OPENCV
  char label[96];
  snprintf (label, sizeof label, "%s opencv", name);
  if (bench_selected (args, label)) {
    Case c = { {NULL}
    };
    c.im = im;
    c.tmpl = tmpl;
    c.n = n_scales;
    memcpy (c.scales, scales, sizeof c.scales[0] * n_scales);
    Peer q = { &c };
    const double ms = median3 (peer, &q, budget);
    printf ("%-22s %2d sizes %9.3f ms   scale %.3f at %d,%d  zncc %.4f   "
        "kconv cpu %.2fx faster\n", label, n_scales, ms, scales[q.size], q.x,
        q.y, q.value, cpu_ms > 0 ? ms / cpu_ms : 0);
    bench_csv_row (args, "%s,opencv-%s,%d,%.4f,%.4f,%d,%d", name,
        peer_opencv_version (), n_scales, ms, scales[q.size], q.x, q.y);
  }
#endif
  free (tmpl);
}

/* How the time grows: each size alone, then the first 1, 4, 8 and all */
static void
bench_growth (const BenchArgs * args, uint8_t * frame, const double *scales,
    int n_scales)
{
  const KConvImage im = { frame, W, H, W, 1, 1, {0} };
  const KMatchRegion piece = { PX, PY, T, T };
  uint8_t *tmpl = kmatch_cut_template (&im, &piece, 1);
  const double budget = args->quick ? 200 : 800;
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  for (int b = 0; b < 2; b++) {
    const char *bname = kconv_backend_info (backends[b])->name;
    if (!kconv_backend_available (backends[b]) || !bench_selected (args, bname))
      continue;
    printf ("%s, each size alone (ms):", bname);
    for (int i = 0; i < n_scales; i++) {
      Case c = { {NULL} };
      c.im = im;
      c.tmpl = tmpl;
      c.scales[0] = scales[i];
      make_sizes (&c, backends[b], 1);
      const double ms = median3 (search, &c, budget);
      printf (" %dpx %.3f", c.widths[0], ms);
      bench_csv_row (args, "growth-alone,%s,%d,%.4f,%.4f,,", bname,
          c.widths[0], ms, scales[i]);
      free_sizes (&c);
    }
    printf ("\n%s, the first N sizes together (ms):", bname);
    const int counts[] = { 1, 4, 8, 15 };
    for (int k = 0; k < 4 && counts[k] <= n_scales; k++) {
      Case c = { {NULL} };
      c.im = im;
      c.tmpl = tmpl;
      memcpy (c.scales, scales, sizeof c.scales[0] * counts[k]);
      make_sizes (&c, backends[b], counts[k]);
      const double ms = median3 (search, &c, budget);
      printf (" %d: %.3f", counts[k], ms);
      bench_csv_row (args, "growth-together,%s,%d,%.4f,,,", bname, counts[k],
          ms);
      free_sizes (&c);
    }
    printf ("\n");
  }
  free (tmpl);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_QUICK | BENCH_CSV
          | BENCH_ONLY | BENCH_PHOTOS,
          "photo,backend,sizes,ms,scale,x,y", &args) != 0)
    return 2;
  if (!args.photos) {
    fprintf (stderr, "--photos DIR (tests/photos.sh) is needed\n");
    return 2;
  }
  threads = args.threads;
  tuning_from_environment ();
#ifdef KCONV_BENCH_OPENCV
  peer_opencv_set_threads (args.threads);
#endif
  double scales[KMATCH_MAX_SCALES];
  char err[160];
  const int n = kmatch_scales_parse ("0.5:2:1.1", scales, err, sizeof err);
  printf ("1920x1080 GRAY8, a 64x64 template (an 80x80 piece shrunk: at "
      "1.25 in the frame), zncc, scales 0.5:2:1.1 (%d sizes), the best of "
      "all; ms a frame\n", n);
  static const char *names[] = { "camera", "astronaut", "coffee", "chelsea" };
  int pinned = 0;
  uint8_t *frame = kconv_host_alloc ((size_t) W * H, &pinned);
  for (int i = 0; i < 4; i++) {
    uint8_t *grey = photo_load (args.photos, names[i], W, H, 1);
    if (!grey) {
      fprintf (stderr, "%s at %dx%d is not in %s\n", names[i], W, H,
          args.photos);
      return 2;
    }
    memcpy (frame, grey, (size_t) W * H);
    free (grey);
    bench_photo (&args, names[i], frame, scales, n);
    if (i == 0) {
      Case c = { {NULL}
      };
      const KConvImage im = { frame, W, H, W, 1, 1, {0} };
      const KMatchRegion piece = { PX, PY, T, T };
      uint8_t *t = kmatch_cut_template (&im, &piece, 1);
      c.tmpl = t;
      c.n = n;
      memcpy (c.scales, scales, sizeof scales[0] * n);
      printf ("making the %d sizes (once per template, on the host): %.3f "
          "ms\n", n, median3 (make_and_free_sizes, &c, 200));
      free (t);
      bench_growth (&args, frame, scales, n);
    }
  }
  kconv_host_free (frame, pinned);
  bench_args_clear (&args);
  return 0;
}
