/* kconv: the threaded CPU backend against the scalar reference
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The table runs on kconv's own choice of path, then forced onto the
 * direct path everywhere it can go (large kernels go through the FFT on
 * their own).  The FFT is not forced onto the whole table (FFTW measures
 * a plan for each new size of transform, up to seconds each), only onto
 * frames it crosses in several tiles of one size.
 *
 *   test-cpu-vs-reference [SEED]
 *   test-cpu-vs-reference --bench [--threads N] [--quick] [--csv FILE]
 *       [--only TEXT]     times the table's named cases at full size
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "conv-table.h"
#include "conv-deep-table.h"
#include "kconv-matrix.h"
#include "tuning-env.h"

static const char *const cpu_paths[] = { "direct", "fft" };

/* Gaussians to 33x33 (16-bit fixed point where the CPU has AVX2): within 1
 * of the reference, equal to it almost everywhere, and exact on flat frames
 * (0 and 255 give the smallest and largest sums there are). */
static void
check_gaussians (void)
{
  const int w = 331, h = 97, ps = 4;
  const size_t n = (size_t) w * h * ps;
  uint8_t *src = malloc (n), *ref = malloc (n), *out = malloc (n);
  static const char *names[] = { "noise", "waves", "flat 0", "flat 1",
    "flat 128", "flat 254", "flat 255"
  };
  static const uint8_t flat[] = { 0, 1, 128, 254, 255 };
  for (int content = 0; content < 7; content++) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w * ps; x++)
        src[(size_t) y * w * ps + x] = content == 0 ? (uint8_t) (rand () >> 7) :
            content == 1 ? (uint8_t) lround (127.5 + 127.5 * sin (x * 0.031 +
                y * 0.047)) : flat[content - 2];
    for (int size = 3; size <= 33; size += 2) {
      int rows, cols;
      float *wt = kconv_named_kernel (KCONV_NAMED_GAUSSIAN, size, 0, &rows,
          &cols);
      KConvKernel k = { cols, rows, wt, 0.0, 0.0, 0 };
      KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
      KConvOptions opt = { KCONV_BACKEND_CPU, 2, -1 };
      KConvFilter *fref = NULL, *f = NULL;
      KConvImage s = { src, w, h, (ptrdiff_t) w * ps, ps, 3, {0, 1, 2, 3} };
      KConvImage dr = s, d = s;
      dr.data = ref;
      d.data = out;
      int ok = kconv_filter_new (&k, KCONV_BORDER_REFLECT, &ref_opt, &fref)
          == KCONV_OK && kconv_filter_new (&k, KCONV_BORDER_REFLECT, &opt, &f)
          == KCONV_OK && kconv_filter_run (fref, &s, &dr) == KCONV_OK
          && kconv_filter_run (f, &s, &d) == KCONV_OK;
      CHECK (ok, "gaussian %d: run", size);
      size_t differ = 0, worst = 0, alpha_kept = 1;
      for (size_t i = 0; ok && i < n; i++) {
        if (i % ps == 3) {
          alpha_kept &= out[i] == src[i];
          continue;
        }
        size_t dv = (size_t) abs ((int) ref[i] - (int) out[i]);
        differ += dv != 0;
        worst = dv > worst ? dv : worst;
      }
      const double share = (double) differ / (n / ps * 3);
      CHECK (worst <= 1 && alpha_kept, "gaussian %d on %s: differs by %zu "
          "(alpha kept: %zu)", size, names[content], worst, alpha_kept);
      /* measured on noise and waves: 0.03 to 0.65% up to 15x15, 0.5 to
       * 1.7% from 17x17 to 33x33 (more taps, each cut short) */
      CHECK (content >= 2 ? differ == 0 : share < (size <= 15 ? 0.01 : 0.025),
          "gaussian %d on %s: "
          "%.3f%% of the samples differ from the reference", size,
          names[content], 100.0 * share);
      kconv_filter_free (fref);
      kconv_filter_free (f);
      free (wt);
    }
  }
  free (src);
  free (ref);
  free (out);
}

/* One exact kernel (rows x cols) on random frames of several layouts and
 * odd widths, 0/255 (sums at both ends) or noise: the same bits as the
 * reference, and an integer path (16-bit lanes, or a box's running sums in
 * integer lanes) taken or not as `int16` says (1 or 0; -1: either), where
 * the CPU has AVX2.  Frames from 1 to `max_height` rows (bands of
 * threads meet in the taller ones). */
static void
check_exact_rect (const char *name, int rows, int cols, const float *w,
    double divisor, double offset, int absolute, int int16, int noise,
    int max_height)
{
  static const struct
  {
    int ps, nc, off[4];
  } layouts[] = { {1, 1, {0}}, {3, 3, {2, 1, 0}}, {4, 3, {0, 1, 2}},
  {4, 4, {0, 1, 2, 3}}, {4, 3, {1, 2, 3}}
  };
  static const int widths[] = { 1, 7, 37, 130 };
  __builtin_cpu_init ();
  const char *isa = getenv ("KCONV_CPU_ISA");
  const int avx2 = __builtin_cpu_supports ("avx2")
      && !(isa && !strcmp (isa, "baseline"));
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
      const int width = widths[wi],
          height = 1 + (int) (wi * 7 + l) * 13 % max_height;
      const int ps = layouts[l].ps;
      const ptrdiff_t stride = (ptrdiff_t) width * ps + 5;
      const size_t size = (size_t) stride * height;
      uint8_t *src = malloc (size), *ref = malloc (size), *out = malloc (size);
      for (size_t i = 0; i < size; i++)
        src[i] = noise ? (uint8_t) (rand () >> 5) : rand () % 2 ? 255 :
            (uint8_t) (rand () % 3);
      memcpy (ref, src, size);
      memcpy (out, src, size);
      KConvKernel k = { cols, rows, w, divisor, offset, absolute };
      KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
      KConvOptions opt = { KCONV_BACKEND_CPU, 2, -1 };
      KConvImage im = { src, width, height, stride, ps, layouts[l].nc,
        {layouts[l].off[0], layouts[l].off[1], layouts[l].off[2],
            layouts[l].off[3]}
      };
      KConvImage dr = im, d = im;
      dr.data = ref;
      d.data = out;
      KConvFilter *fref = NULL, *f = NULL;
      int ok = kconv_filter_new (&k, (KConvBorder) (wi % 4), &ref_opt, &fref)
          == KCONV_OK && kconv_filter_new (&k, (KConvBorder) (wi % 4), &opt,
          &f) == KCONV_OK && kconv_filter_is_exact (f)
          && kconv_filter_run (fref, &im, &dr) == KCONV_OK
          && kconv_filter_run (f, &im, &d) == KCONV_OK;
      CHECK (ok, "%s: run", name);
      if (ok) {
        CHECK (memcmp (ref, out, size) == 0, "%s %dx%d (div %g off %g abs "
            "%d), %d-byte pixels, %dx%d, border %d: differs from the "
            "reference", name, cols, rows, divisor, offset, absolute, ps,
            width, height, (int) (wi % 4));
        const char *path = kconv_filter_strategy (f);
        const int took = strstr (path, "16-bit") || strstr (path,
            "integer lanes");
        CHECK (!avx2 || int16 < 0 || took == int16, "%s %dx%d (div %g): %s",
            name, cols, rows, divisor, path);
      }
      kconv_filter_free (fref);
      kconv_filter_free (f);
      free (src);
      free (ref);
      free (out);
    }
}

static void
check_exact_kernel (const char *name, int n, const float *w, double divisor,
    double offset, int absolute, int int16)
{
  check_exact_rect (name, n, n, w, divisor, offset, absolute, int16, 0, 23);
}

/* Boxes of every shape to 121x121 (1xN and Nx1 among them), by running
 * sums: in integer lanes where |w| divides the divisor (16-bit to 16x16 when
 * normalised, 32-bit beyond, or where the quotient can pass 1023), in floats
 * where it does not; every border, layout and sign, offsets at the ends of
 * their range, on 0/255 frames and on noise, frames tall enough for two
 * threads' bands to meet. */
static void
check_boxes (void)
{
  static const struct
  {
    int rows, cols;
    float w;
    double divisor, offset;
    int absolute, int_lanes;
  } boxes[] = {
    {5, 5, 1, 0, 0, 0, 1}, {7, 7, 1, 0, 0, 0, 1}, {9, 9, 1, 0, 3, 0, 1},
    {15, 15, 1, 0, 0, 0, 1}, {16, 16, 1, 0, 0, 0, 1},
    {17, 17, 1, 0, 0, 0, 1}, {31, 31, 1, 0, -2, 0, 1},
    {61, 61, 1, 0, 0, 0, 1}, {121, 121, 1, 0, 0, 0, 1},
    {1, 31, 1, 0, 0, 0, 1}, {31, 1, 1, 0, 0, 0, 1}, {1, 121, 1, 0, 0, 0, 1},
    {121, 1, 1, 0, 0, 0, 1}, {5, 9, 1, 0, 0, 0, 1}, {9, 5, 1, 0, 0, 0, 1},
    {3, 41, 1, 0, 0, 0, 1}, {41, 3, 1, 0, 7, 0, 1}, {2, 16, 1, 0, 0, 0, 1},
    {6, 8, 1, 0, 0, 0, 1}, {12, 10, 1, 0, 0, 0, 1},
    /* weights and divisors of other values and signs */
    {7, 7, 3, 0, 0, 0, 1}, {7, 7, 1, 48, 0, 0, 1}, {7, 7, 1, 50, 0, 0, 1},
    {7, 7, 1, 64, 0, 0, 1}, {7, 7, -1, 0, 0, 0, 1}, {7, 7, 1, -49, 200, 0, 1},
    {7, 7, -1, 0, 255, 0, 1}, {7, 7, -1, 49, 0, 1, 1},
    {7, 7, 1, -49, 0, 1, 1}, {7, 7, -2, -98, 0, 0, 1},
    {9, 9, 1, 1, 0, 0, 1}, {5, 5, 1, 4, -600, 0, 1}, {5, 5, 1, 2, -5000, 0, 1},
    {5, 5, 1, 25, 1e6, 0, 1}, {5, 5, 1, 25, -1e6, 0, 1},
    {31, 31, 1, 961, 1e7, 0, 1}, {31, 31, 1, -961, 1e7, 0, 1},
    {31, 31, -1, 961, -1e7, 1, 1}, {61, 61, 1, 7, 0, 0, 1},
    {121, 121, 1, 1, -3000000, 0, 1},
    /* S + h past 2^22: the float quotient corrected a step each way */
    {121, 121, 1, 4194304, 7, 0, 1}, {121, 121, -1, 4194304, 200, 0, 1},
    /* |w| not dividing the divisor, or sums near 2^24 once it is added:
     * running sums in floats (or 16-bit taps, where they hold it) */
    {61, 61, 2, 3, 0, 0, 0}, {7, 7, 2, 49, 0, 0, -1},
    {121, 121, 1, 33554432, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
    const int n = boxes[i].rows * boxes[i].cols;
    float *w = malloc (sizeof (float) * n);
    for (int j = 0; j < n; j++)
      w[j] = boxes[i].w;
    for (int noise = 0; noise < 2; noise++)
      check_exact_rect ("box", boxes[i].rows, boxes[i].cols, w,
          boxes[i].divisor, boxes[i].offset, boxes[i].absolute,
          boxes[i].int_lanes, noise, n > 1000 ? 23 : 61);
    free (w);
  }
}

/* Exact kernels in 16-bit lanes: the named ones, boxes, divisors that are
 * powers of 2 and divisors that are not, and the edges of what 16 bits
 * hold. */
static void
check_exact_16bit (void)
{
  static const KConvNamedKernel named[] = { KCONV_NAMED_EDGE,
    KCONV_NAMED_LAPLACIAN, KCONV_NAMED_SHARPEN, KCONV_NAMED_SOBEL_X,
    KCONV_NAMED_SOBEL_Y, KCONV_NAMED_EMBOSS
  };
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    int rows, cols;
    float *w = kconv_named_kernel (named[i], 3, 0, &rows, &cols);
    check_exact_kernel ("named", rows, w, 0, i % 2 ? 128 : 0, (int) i % 3 == 0,
        1);
    free (w);
  }
  /* sum |w| = 128: 255 * 128 + d / 2 fits up to d = 2^8, not beyond */
  float big[9] = { 0, -1, 0, 0, 127, 0, 0, 0, 0 };
  for (int k = 0; k <= 9; k++)
    check_exact_kernel ("127 and -1", 3, big, k % 2 ? -(1 << k) : (1 << k),
        k % 3 ? -20 : 300, k % 4 == 1, k <= 8 && (255 * 128 + (1 << k) / 2
            <= 32767));
  /* 7x7 of +-2 (sum |w| 98), every power of 2 to 64; then 129: too much */
  float w7[49];
  for (int i = 0; i < 49; i++)
    w7[i] = i % 3 ? 2.f : -2.f;
  for (int k = 0; k <= 6; k++)
    check_exact_kernel ("7x7 of 2", 7, w7, 1 << k, k - 3, k % 2, 1);
  /* divisors that are not powers of 2, of either sign, on the same */
  static const int odd_divisors[] = { 3, -5, 7, 9, -25, 49, 100, 255, -1000,
    12345
  };
  for (size_t i = 0; i < sizeof odd_divisors / sizeof odd_divisors[0]; i++)
    check_exact_kernel ("7x7 of 2", 7, w7, odd_divisors[i], (int) i - 4,
        (int) i % 2, 1);
  /* named boxes: the divisor is the count of weights; 3x3 in two passes
   * of 16-bit lanes, from 5x5 by running sums in integer lanes */
  for (int n = 3; n <= 13; n += 2) {
    int rows, cols;
    float *w = kconv_named_kernel (KCONV_NAMED_BOX, n, 0, &rows, &cols);
    check_exact_kernel ("box", n, w, 0, n % 3, n % 4 == 1, 1);
    free (w);
  }
  /* rank 1 with signs, the divisor negative: two passes, exact */
  float sep[49];
  static const float col[7] = { 1, -2, 3, 0, -3, 2, -1 };
  static const float row[7] = { 2, 1, 0, -1, -2, 1, 1 };
  for (int r = 0; r < 7; r++)
    for (int c = 0; c < 7; c++)
      sep[r * 7 + c] = col[r] * row[c];
  check_exact_kernel ("7x7 rank 1", 7, sep, -3, 17, 0, 1);
  check_exact_kernel ("7x7 rank 1, abs", 7, sep, 8, 0, 1, 1);
  /* the largest sums with odd divisors: 16 bits or not, exact either way */
  for (int d = 3; d <= 255; d += 36)
    check_exact_kernel ("127 and -1", 3, big, d, 0, 0, -1);
  big[1] = -2;
  check_exact_kernel ("127 and -2", 3, big, 1, 0, 0, 0);
  /* a weight of 128 does not fit a signed byte (2x2: one pass) */
  float w128[4] = { 128, 0, 0, 0 };
  check_exact_kernel ("128", 2, w128, 128, 0, 0, 0);
}

/* The exact finish (round half up of s / d, from a float estimate and
 * correction steps) on every sample value, for sums up to the exact limit
 * of either sign and every divisor to 70: a 1x1 kernel on a frame of 0..255. */
static void
check_exact_finish (void)
{
  static const float weights[] = { 65792, -65792, 65791, -12345, 257, -3 };
  uint8_t src[256], ref[256], out[256];
  for (int i = 0; i < 256; i++)
    src[i] = (uint8_t) i;
  int worst_d = 0;
  for (size_t wi = 0; wi < sizeof weights / sizeof weights[0]; wi++)
    for (int d = -70; d <= 70; d++) {
      if (d == 0)
        continue;
      KConvKernel k =
          { 1, 1, &weights[wi], d, (double) (d % 7) * 9, d % 3 == 0 };
      KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
      KConvOptions opt = { KCONV_BACKEND_CPU, 1, -1 };
      KConvImage im = { src, 256, 1, 256, 1, 1, {0} }, dr = im, dc = im;
      dr.data = ref;
      dc.data = out;
      KConvFilter *fref = NULL, *f = NULL;
      int ok = kconv_filter_new (&k, KCONV_BORDER_ZERO, &ref_opt, &fref)
          == KCONV_OK && kconv_filter_new (&k, KCONV_BORDER_ZERO, &opt, &f)
          == KCONV_OK && kconv_filter_is_exact (f)
          && kconv_filter_run (fref, &im, &dr) == KCONV_OK
          && kconv_filter_run (f, &im, &dc) == KCONV_OK;
      if (!ok || memcmp (ref, out, sizeof ref) != 0)
        worst_d = d;
      kconv_filter_free (fref);
      kconv_filter_free (f);
    }
  CHECK (worst_d == 0, "exact finish: differs from the reference (divisor %d)",
      worst_d);

  /* Sums whose quotient lies just above a negative integer, where an
   * estimate truncated towards zero is 2 off (found by search), with an
   * offset that brings the result into 0..255 where an error shows. */
  static const struct
  {
    int p, d;
  } near[] = { {185, 47}, {146, 83}, {224, 227}, {241, 243}, {157, 427},
  {214, 975}
  };
  for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
    const float w = -65792.f;
    const int64_t sum = (int64_t) w * near[i].p, d = near[i].d;
    /* round half up of sum / d, as kconv.h defines it */
    const int64_t q = (2 * sum + d - ((2 * sum + d) % (2 * d) + 2 * d) %
        (2 * d)) / (2 * d);
    KConvKernel k = { 1, 1, &w, (double) d, (double) (100 - q), 0 };
    KConvOptions opt = { KCONV_BACKEND_CPU, 1, -1 };
    memset (src, near[i].p, sizeof src);
    KConvImage im = { src, 256, 1, 256, 1, 1, {0}
    }, dc = im;
    dc.data = out;
    KConvFilter *f = NULL;
    int ok = kconv_filter_new (&k, KCONV_BORDER_REPLICATE, &opt, &f) ==
        KCONV_OK && kconv_filter_run (f, &im, &dc) == KCONV_OK;
    CHECK (ok && out[0] == 100 && out[255] == 100, "exact finish: %d * %d / "
        "%d gives %d, not 100", (int) w, near[i].p, near[i].d, out[0]);
    kconv_filter_free (f);
  }
}

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  if (argc > 1 && !strcmp (argv[1], "--bench")) {
    BenchArgs args;
    argv[1] = argv[0];
    if (bench_args_parse (argc - 1, argv + 1, BENCH_THREADS | BENCH_QUICK |
            BENCH_CSV | BENCH_ONLY, "case,backend,forced,ms,mpix_s,path",
            &args))
      return 2;
    conv_table_bench (KCONV_BACKEND_CPU, &args, cpu_paths, 2);
    bench_args_clear (&args);
    return 0;
  }
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261122u;
  printf ("seed %u\n", seed);
  conv_table_run (KCONV_BACKEND_CPU, seed, KCONV_MAX_KERNEL_SIZE);
  check_gaussians ();
  check_exact_16bit ();
  check_boxes ();
  check_exact_finish ();
  printf ("16-bit samples\n");
  conv_deep_table_run (KCONV_BACKEND_CPU, seed + 3);

  printf ("forced: direct\n");
  CHECK (kconv_force_strategy (KCONV_BACKEND_CPU, "direct") == KCONV_OK,
      "force direct");
  conv_table_run (KCONV_BACKEND_CPU, seed + 1, KCONV_MAX_KERNEL_SIZE);
  kconv_force_strategy (KCONV_BACKEND_CPU, NULL);

  printf ("forced: fft, frames in several tiles\n");
  CHECK (kconv_force_strategy (KCONV_BACKEND_CPU, "fft") == KCONV_OK,
      "force fft");
  conv_table_run_tiles (KCONV_BACKEND_CPU, seed + 2);
  kconv_force_strategy (KCONV_BACKEND_CPU, NULL);

  /* names another backend's, or none */
  CHECK (kconv_force_strategy (KCONV_BACKEND_CPU, "mma") ==
      KCONV_ERROR_INVALID_ARGUMENT && *kconv_last_error (),
      "a CUDA path refused on the CPU, with a reason");
  CHECK (kconv_force_strategy (KCONV_BACKEND_REFERENCE, "direct") ==
      KCONV_ERROR_INVALID_ARGUMENT, "the reference has one path");
  return check_summary ();
}
