/* kconv: a backend against the scalar reference, over a table of cases
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * dav1d checkasm style: random pixels, random kernels, padded strides, the
 * outputs of both sides poisoned with different bytes, then every sample
 * compared.  Exact kernels must match to the bit; others within 1.
 *
 * The named cases below are the benchmark's: the table checks each at a
 * small size, and conv_table_bench times the same cases at full size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench-harness.h"
#include "check.h"
#include "test-rng.h"
#include "conv-table.h"
#include "kconv-tuning.h"

typedef struct
{
  const char *name;
  int pixel_stride, n_channels, offsets[4];
} Layout;

static const Layout layouts[] = {
  {"GRAY8", 1, 1, {0}},
  {"RGB", 3, 3, {0, 1, 2}},
  {"BGR", 3, 3, {2, 1, 0}},
  {"xBGR-all", 4, 4, {3, 2, 1, 0}},
  {"RGBA", 4, 3, {0, 1, 2}},
  {"ARGB", 4, 3, {1, 2, 3}},
  {"RGBA-all", 4, 4, {0, 1, 2, 3}},
  {"NV12-UV", 2, 2, {0, 1}},
  {"YUY2-Y", 2, 1, {0}},
  {"YUY2-UV", 4, 2, {1, 3}},
};

/* K_BLUR: separable with positive weights, normalised by the automatic
 * divisor, like a gaussian (what CUDA's half-precision path takes) */
typedef enum
{ K_INT, K_INT_SEPARABLE, K_FLOAT, K_FLOAT_SEPARABLE, K_BLUR,
  K_KINDS
} KernelKind;
static const char *kind_names[] = { "int", "int-sep", "float", "float-sep",
  "blur"
};

/* The cases the benchmark times (full size) and the table checks (at most
 * CHECK_W x CHECK_H, the same kernel, layout and border). */
typedef struct
{
  const char *name;
  int width, height, layout;    /* an index into layouts */
  int rows, cols;
  KernelKind kind;
  KConvBorder border;
} NamedCase;

#define L_GRAY8 0
#define L_RGB 1
#define L_RGBA 4
#define CHECK_W 160
#define CHECK_H 90

static const NamedCase named_cases[] = {
  {"1080p RGBA 3x3 int", 1920, 1080, L_RGBA, 3, 3, K_INT, KCONV_BORDER_REFLECT},
  {"1080p RGBA 7x7 float", 1920, 1080, L_RGBA, 7, 7, K_FLOAT,
      KCONV_BORDER_REFLECT},
  {"1080p RGBA 31x31 blur", 1920, 1080, L_RGBA, 31, 31, K_BLUR,
      KCONV_BORDER_REFLECT},
  {"1080p GRAY8 5x5 int", 1920, 1080, L_GRAY8, 5, 5, K_INT,
      KCONV_BORDER_REPLICATE},
  {"4K RGBA 3x3 int", 3840, 2160, L_RGBA, 3, 3, K_INT, KCONV_BORDER_REFLECT},
  {"4K RGBA 15x15 int", 3840, 2160, L_RGBA, 15, 15, K_INT,
      KCONV_BORDER_REFLECT},
  {"4K RGBA 31x31 int", 3840, 2160, L_RGBA, 31, 31, K_INT,
      KCONV_BORDER_REFLECT},
  {"1000x1000 RGB 121x121 int", 1000, 1000, L_RGB, 121, 121, K_INT,
      KCONV_BORDER_REFLECT},
};

static float
rnd_float (void)
{
  return (float) ((rnd () % 20001) / 10000.0 - 1.0);
}

static float *
make_weights (KernelKind kind, int rows, int cols)
{
  float *w = malloc (sizeof (float) * rows * cols);
  float h[KCONV_MAX_KERNEL_SIZE], v[KCONV_MAX_KERNEL_SIZE];
  for (int i = 0; i < cols; i++)
    h[i] = kind == K_INT_SEPARABLE ? rnd_range (-3, 3) : kind == K_BLUR ?
        0.05f + fabsf (rnd_float ()) : rnd_float ();
  for (int i = 0; i < rows; i++)
    v[i] = kind == K_INT_SEPARABLE ? rnd_range (-3, 3) : kind == K_BLUR ?
        0.05f + fabsf (rnd_float ()) : rnd_float ();
  /* never all 0 */
  h[rnd () % cols] = kind == K_INT_SEPARABLE ? 2 : 0.75f;
  v[rnd () % rows] = kind == K_INT_SEPARABLE ? -1 : 0.5f;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float *o = &w[r * cols + c];
      switch (kind) {
        case K_INT:
          *o = rnd_range (-8, 8);
          break;
        case K_FLOAT:
          *o = rnd_float ();
          break;
        default:
          *o = v[r] * h[c];
          break;
      }
    }
  return w;
}

/* When not NaN: the divisor and offset of the next cases, in place of
 * random ones (the extremes at the end of the table). */
static double forced_divisor = NAN, forced_offset = NAN;

static void
run_case (KConvBackend backend, const Layout * lay, int width, int height,
    int rows, int cols, KernelKind kind, KConvBorder border, int n_threads)
{
  int ps = lay->pixel_stride;
  ptrdiff_t stride = (ptrdiff_t) width * ps + rnd_range (0, 37);
  size_t size = (size_t) stride * height;
  uint8_t *src = malloc (size), *ref = malloc (size), *out = malloc (size);
  for (size_t i = 0; i < size; i++)
    src[i] = (uint8_t) rnd ();
  uint8_t poison_ref = (uint8_t) rnd (), poison_out = poison_ref ^ 0x5a;
  memset (ref, poison_ref, size);
  memset (out, poison_out, size);

  float *w = make_weights (kind, rows, cols);
  KConvKernel k = { cols, rows, w, 0.0, 0.0, (int) (rnd () % 2) };
  int exact = kind == K_INT || kind == K_INT_SEPARABLE;
  switch (rnd () % 4) {
    case 0:
      k.divisor = exact ? rnd_range (1, 40) * (rnd () % 2 ? 1 : -1) :
          rnd_float () * 8.0 + 0.1;
      break;
    case 1:
      k.offset = exact ? rnd_range (-128, 128) : rnd_float () * 128.0;
      break;
    default:
      break;                    /* auto divisor */
  }
  if (!isnan (forced_divisor)) {
    k.divisor = forced_divisor;
    k.offset = forced_offset;
  }

  KConvImage s = { src, width, height, stride, ps, lay->n_channels,
    {lay->offsets[0], lay->offsets[1], lay->offsets[2], lay->offsets[3]}
  };
  KConvImage dr = s, dout = s;
  dr.data = ref;
  dout.data = out;
  /* now and then the bytes outside the channels are the destination's to
   * keep (the second image over a packed 4:2:2 plane): they must stay
   * poisoned */
  const int keep = lay->n_channels < ps && rnd () % 4 == 0;
  dr.keep_other_bytes = dout.keep_other_bytes = keep;

  KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvOptions opt = { backend, n_threads, -1 };
  KConvFilter *fref = NULL, *f = NULL;
  KConvStatus st1 = kconv_filter_new (&k, border, &ref_opt, &fref);
  KConvStatus st2 = kconv_filter_new (&k, border, &opt, &f);
  char what[200];
  snprintf (what, sizeof what, "%s%s %dx%d stride %td, %s kernel %dx%d "
      "(div %g off %g abs %d), border %d, %d threads", lay->name,
      keep ? " (others kept)" : "", width, height, stride, kind_names[kind],
      cols, rows, k.divisor, k.offset, k.absolute, border, n_threads);
  CHECK (st1 == KCONV_OK && st2 == KCONV_OK, "%s: create: %s", what,
      kconv_status_string (st2));
  if (st1 != KCONV_OK || st2 != KCONV_OK)
    goto done;
  CHECK (kconv_filter_is_exact (f) == exact, "%s: exactness", what);
  /* (the CPU takes small exact kernels in one 16-bit pass instead) */
  if ((kind == K_INT_SEPARABLE || kind == K_FLOAT_SEPARABLE
          || kind == K_BLUR) && rows * cols >= 2 * (rows + cols) && rows > 1
      && cols > 1 && !strstr (kconv_filter_strategy (f), "16-bit lanes"))
    CHECK (kconv_filter_path (f) == KCONV_PATH_SEPARABLE,
        "%s: separable kernel not split", what);

  st1 = kconv_filter_run (fref, &s, &dr);
  st2 = kconv_filter_run (f, &s, &dout);
  CHECK (st1 == KCONV_OK && st2 == KCONV_OK, "%s: run: %s", what,
      kconv_status_string (st2));

  int worst = 0, first_x = -1, first_y = -1, untouched = 1;
  for (int y = 0; y < height; y++) {
    for (ptrdiff_t i = 0; i < stride; i++) {
      size_t at = (size_t) y * stride + i;
      int other = 1;
      for (int c = 0; c < lay->n_channels; c++)
        other &= i % ps != lay->offsets[c];
      if (i >= (ptrdiff_t) width * ps || (keep && other)) {
        untouched &= ref[at] == poison_ref && out[at] == poison_out;
        continue;
      }
      int d = abs ((int) ref[at] - (int) out[at]);
      if (d > worst) {
        worst = d;
        first_x = (int) (i / ps);
        first_y = y;
      }
    }
  }
  CHECK (worst <= (exact ? 0 : 1), "%s: differs by %d at (%d,%d)", what,
      worst, first_x, first_y);
  CHECK (untouched, "%s: wrote into row padding or kept bytes", what);

done:
  kconv_filter_free (fref);
  kconv_filter_free (f);
  free (w);
  free (src);
  free (ref);
  free (out);
}

/* Integer weights whose absolute sum is `total`.  65792, the most the
 * exact path takes: bright frames then give sums near 2^24 where a float
 * estimate of the quotient is at its least precise.  128 and 129: either
 * side of what CUDA's packed path (sums in 16-bit lanes) takes, and
 * 127 n^2 (every weight +-127), on frames of 0 and 255 that drive the sums
 * to both ends. */
static void
run_case_weight_sum (KConvBackend backend, const Layout * lay, int width,
    int height, int n, KConvBorder border, int total)
{
  int ps = lay->pixel_stride;
  ptrdiff_t stride = (ptrdiff_t) width * ps;
  size_t size = (size_t) stride * height;
  uint8_t *src = malloc (size), *ref = malloc (size), *out = malloc (size);
  for (size_t i = 0; i < size; i++)
    src[i] = total >= 65792 ? (uint8_t) (200 + rnd () % 56) :
        rnd () % 2 ? 255 : 0;
  float *w = malloc (sizeof (float) * n * n);
  int left = total;
  for (int i = 0; i < n * n; i++) {
    int share = i == n * n - 1 ? left : left / (n * n - i);
    w[i] = (float) (rnd () % 8 ? share : -share);
    left -= share;
  }
  KConvKernel k = { n, n, w, rnd_range (2, 1000) * (rnd () % 2 ? 1 : -1),
    rnd_range (-300, 300), (int) (rnd () % 2)
  };
  KConvImage s = { src, width, height, stride, ps, lay->n_channels,
    {lay->offsets[0], lay->offsets[1], lay->offsets[2], lay->offsets[3]}
  };
  KConvImage dr = s, dout = s;
  dr.data = ref;
  dout.data = out;
  KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvOptions opt = { backend, 2, -1 };
  KConvFilter *fref = NULL, *f = NULL;
  int ok = kconv_filter_new (&k, border, &ref_opt, &fref) == KCONV_OK
      && kconv_filter_new (&k, border, &opt, &f) == KCONV_OK
      && kconv_filter_is_exact (f)
      && kconv_filter_run (fref, &s, &dr) == KCONV_OK
      && kconv_filter_run (f, &s, &dout) == KCONV_OK;
  CHECK (ok, "sum |w| %d, %dx%d kernel: setup", total, n, n);
  if (ok)
    CHECK (memcmp (ref, out, size) == 0, "sum |w| %d, %s %dx%d, %dx%d kernel, "
        "divisor %g: differs from the reference", total, lay->name, width,
        height, n, n, k.divisor);
  kconv_filter_free (fref);
  kconv_filter_free (f);
  free (w);
  free (src);
  free (ref);
  free (out);
}

/* The named cases at the table's size. */
static void
check_named_cases (KConvBackend backend, int max_kernel)
{
  for (size_t i = 0; i < sizeof named_cases / sizeof named_cases[0]; i++) {
    const NamedCase *c = &named_cases[i];
    if (c->rows > max_kernel || c->cols > max_kernel)
      continue;
    run_case (backend, &layouts[c->layout], c->width < CHECK_W ? c->width :
        CHECK_W, c->height < CHECK_H ? c->height : CHECK_H, c->rows, c->cols,
        c->kind, c->border, 2);
  }
}

void
conv_table_bench (KConvBackend backend, const BenchArgs * args,
    const char *const *strategies, int n_strategies)
{
  test_rng_seed (20261123u);
  printf ("%-28s %-6s %9s %9s   %s\n", "case", "forced", "ms", "Mpix/s",
      "path");
  for (size_t i = 0; i < sizeof named_cases / sizeof named_cases[0]; i++) {
    const NamedCase *c = &named_cases[i];
    if (!bench_selected (args, c->name))
      continue;
    const Layout *lay = &layouts[c->layout];
    const ptrdiff_t stride = (ptrdiff_t) c->width * lay->pixel_stride;
    const size_t bytes = (size_t) stride * c->height;
    int pin_src, pin_dst;
    uint8_t *src = kconv_host_alloc (bytes, &pin_src);
    uint8_t *dst = kconv_host_alloc (bytes, &pin_dst);
    for (size_t b = 0; b < bytes; b++)
      src[b] = (uint8_t) rnd ();
    float *w = make_weights (c->kind, c->rows, c->cols);
    KConvKernel k = { c->cols, c->rows, w, 0.0, 0.0, 0 };
    KConvImage im = { src, c->width, c->height, stride, lay->pixel_stride,
      lay->n_channels, {lay->offsets[0], lay->offsets[1], lay->offsets[2],
          lay->offsets[3]}
    };
    char done[8][200];
    int n_done = 0;
    /* kconv's own choice first, then each forced path it takes */
    for (int s = -1; s < n_strategies; s++) {
      kconv_force_strategy (backend, s < 0 ? NULL : strategies[s]);
      KConvOptions opt = { backend, args->threads, -1 };
      BenchFilterRun r = { NULL, im, im };
      r.dst.data = dst;
      KConvStatus st = kconv_filter_new (&k, c->border, &opt, &r.filter);
      kconv_force_strategy (backend, NULL);
      if (st != KCONV_OK)
        continue;
      const char *path = kconv_filter_strategy (r.filter);
      int seen = 0;
      for (int d = 0; d < n_done; d++)
        seen |= !strcmp (done[d], path);
      if (!seen && n_done < 8) {
        snprintf (done[n_done++], sizeof done[0], "%s", path);
        const double ms =
            bench_time_ms (bench_filter_run, &r, args->quick ? 300 : 1000, 31);
        const double mpix = (double) c->width * c->height / (ms * 1e3);
        printf ("%-28s %-6s %9.3f %9.1f   %s\n", c->name, s < 0 ? "-" :
            strategies[s], ms, mpix, path);
        bench_csv_row (args, "%s,%s,%s,%.4f,%.1f,\"%s\"", c->name,
            kconv_backend_name (backend), s < 0 ? "" : strategies[s], ms,
            mpix, path);
        fflush (stdout);
      }
      kconv_filter_free (r.filter);
    }
    free (w);
    kconv_host_free (src, pin_src);
    kconv_host_free (dst, pin_dst);
  }
}

void
conv_table_run (KConvBackend backend, unsigned seed, int max_kernel)
{
  static const int sides[] = { 1, 2, 3, 17 };
  static const int ksizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 31, 61, 121
  };
  static const int odd_shapes[][2] = { {1, 5}, {5, 1}, {7, 3}, {2, 4}, {15, 1},
  {3, 11}, {1, 31}, {31, 1}, {9, 6}
  };
  const int n_layouts = sizeof layouts / sizeof layouts[0];
  test_rng_seed (seed);

  /* the benchmark's cases, small */
  check_named_cases (backend, max_kernel);

  /* every kernel size and border on small frames, layouts in rotation */
  for (size_t k = 0; k < sizeof ksizes / sizeof ksizes[0]; k++) {
    int n = ksizes[k];
    if (n > max_kernel)
      continue;
    for (int b = KCONV_BORDER_ZERO; b <= KCONV_BORDER_WRAP; b++)
      for (int kind = K_INT; kind < K_KINDS; kind++) {
        const Layout *lay = &layouts[(k + b + kind) % n_layouts];
        int w = n > 15 ? rnd_range (1, 70) : rnd_range (1, 40);
        int h = n > 15 ? rnd_range (1, 40) : rnd_range (1, 30);
        run_case (backend, lay, w, h, n, n, kind, b, rnd_range (1, 3));
      }
  }

  /* tiny sides against every layout: borders larger than the frame */
  for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
    for (size_t j = 0; j < sizeof sides / sizeof sides[0]; j++)
      for (int l = 0; l < n_layouts; l++) {
        int n = 1 + 2 * rnd_range (0, 4);
        run_case (backend, &layouts[l], sides[i], sides[j], n, n,
            rnd () % K_KINDS, rnd () % 4, rnd_range (1, 4));
      }

  /* non-square kernels */
  for (size_t i = 0; i < sizeof odd_shapes / sizeof odd_shapes[0]; i++)
    for (int kind = K_INT; kind < K_KINDS; kind++)
      run_case (backend, &layouts[rnd () % n_layouts], rnd_range (1, 50),
          rnd_range (1, 50), odd_shapes[i][0], odd_shapes[i][1], kind,
          rnd () % 4, rnd_range (1, 3));

  /* long rows and tall columns */
  for (int l = 0; l < n_layouts; l++) {
    run_case (backend, &layouts[l], 1023, rnd_range (3, 9), 3, 3,
        rnd () % 4, rnd () % 4, 2);
    run_case (backend, &layouts[l], rnd_range (2, 7), 1023, 5, 5,
        rnd () % 4, rnd () % 4, 2);
  }
  run_case (backend, &layouts[2], 1023, 17, 15, 15, K_INT, KCONV_BORDER_REFLECT,
      2);
  run_case (backend, &layouts[0], 1023, 1023, 7, 7, K_FLOAT, KCONV_BORDER_WRAP,
      2);

  /* sums near the exact path's limit (255 * sum |w| just under 2^24) */
  for (int i = 0; i < 12; i++)
    run_case_weight_sum (backend, &layouts[i % n_layouts], rnd_range (1, 40),
        rnd_range (1, 30), 1 + 2 * rnd_range (0, 3), rnd () % 4, 65792);

  /* either side of the 16-bit lane limit, on 4-byte pixels, 3x3 to 7x7 */
  for (int i = 0; i < 24; i++)
    run_case_weight_sum (backend, &layouts[3 + i % 4], rnd_range (1, 90),
        rnd_range (1, 80), 3 + 2 * (i / 4 % 3), i % 4, i % 2 ? 128 : 129);

  /* small exact kernels on 4-byte pixels, on frames wide enough for
   * CUDA's strips (warps of 128 pixels) to have warps clear of both edges:
   * random weights, sums at the 16-bit lanes' limit, every weight +-127 */
  for (int i = 0; i < 36; i++) {
    const Layout *lay = &layouts[3 + i % 4];
    const int n = 3 + 2 * (i / 12), w = rnd_range (260, 700);
    const int h = rnd_range (1, 70);
    if (i % 3 == 0)
      run_case (backend, lay, w, h, n, n, K_INT, i / 3 % 4, 2);
    else
      run_case_weight_sum (backend, lay, w, h, n, i / 3 % 4,
          i % 3 == 1 ? 128 : 127 * n * n);
  }

  /* the same on frames with many strips clear of every edge (CUDA's
   * strips take those without the border rule) and some that are not */
  for (int i = 0; i < 6; i++)
    run_case (backend, &layouts[3 + i % 4], rnd_range (520, 800),
        rnd_range (40, 140), 3 + 2 * (i % 3), 3 + 2 * (i % 3), K_INT, i % 4, 2);

  /* every weight +-127, the most a signed byte (CUDA's DP4A path) holds */
  for (int i = 0; i < 12; i++) {
    int n = 3 + 2 * (i % 3);
    run_case_weight_sum (backend, &layouts[3 + i % 4], rnd_range (1, 150),
        rnd_range (1, 80), n, i % 4, 127 * n * n);
  }
  /* frames large enough for tiles clear of the border */
  for (int i = 0; i < 8; i++) {
    int n = 5 + 2 * (i % 2);
    run_case_weight_sum (backend, &layouts[3 + i % 4], 300, 200, n, i % 4,
        i < 4 ? 127 * n * n : 400);
  }
  /* large kernels on frames with tiles clear of the border, every layout,
   * weights as large as the exact limit lets them be (up to +-127) */
  for (int i = 0; i < 8; i++) {
    static const int big[] = { 9, 15, 31, 61 };
    const int n = big[i % 4];
    if (n > max_kernel)
      continue;
    run_case_weight_sum (backend, &layouts[i % n_layouts], 200 + i, 190 - i,
        n, i % 4, 127 * n * n < 65792 ? 127 * n * n : 65792);
  }
  if (max_kernel >= 121)
    run_case_weight_sum (backend, &layouts[0], 250, 200, 121,
        KCONV_BORDER_REFLECT, 65792);
  /* blurs up to 33x33 on frames with interior tiles, every layout */
  for (int i = 0; i < 16; i++) {
    static const int sizes[] = { 9, 15, 21, 31, 33, 11, 25, 3 };
    const int n = sizes[i % 8], m = i < 8 ? n : sizes[(i + 3) % 8];
    if (n <= max_kernel && m <= max_kernel)
      run_case (backend, &layouts[i % n_layouts], rnd_range (130, 260),
          rnd_range (130, 200), n, m, K_BLUR, i % 4, 2);
  }
  run_case (backend, &layouts[4], 200, 150, 9, 45, K_INT, KCONV_BORDER_ZERO, 2);
  run_case (backend, &layouts[1], 150, 200, 45, 9, K_INT,
      KCONV_BORDER_REPLICATE, 2);

  /* divisors and offsets past what 32-bit integer paths hold: every
   * quotient rounds to 0, every offset clamps, the same on every path */
  static const double extremes[][2] = {
    {1073741824.0, 0}, {-2147483648.0, 3}, {1e30, -1}, {1, 1073741824.0},
    {-5, -1073741824.0}, {2, 1e30}, {1, -3e9}, {33554431.0, 100},
  };
  for (int i = 0; i < 8; i++) {
    static const int sizes[] = { 3, 5, 7, 15 };
    const int n = sizes[i % 4];
    forced_divisor = extremes[i][0];
    forced_offset = extremes[i][1];
    if (n <= max_kernel)
      run_case (backend, &layouts[i % n_layouts], rnd_range (20, 90),
          rnd_range (10, 60), n, n, i % 2 ? K_INT_SEPARABLE : K_INT, i % 4, 2);
  }
  forced_divisor = forced_offset = NAN;
}

void
conv_table_run_tiles (KConvBackend backend, unsigned seed)
{
  static const int shapes[][2] = { {9, 9}, {17, 17}, {9, 17}, {25, 7} };
  static const int frames[][2] = { {600, 300}, {517, 523}, {263, 700} };
  const int n_layouts = sizeof layouts / sizeof layouts[0];
  test_rng_seed (seed);
  for (int i = 0; i < 24; i++) {
    const int *s = shapes[i % 4], *fr = frames[i % 3];
    run_case (backend, &layouts[i % n_layouts], fr[0], fr[1], s[0], s[1],
        i % 2 ? K_FLOAT : K_INT, i % 4, rnd_range (1, 3));
  }
}
