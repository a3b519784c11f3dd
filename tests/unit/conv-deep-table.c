/* kconv: a backend against the scalar reference on 16-bit samples
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same method as conv-table.c, on the layouts GStreamer gives 10-, 12-
 * and 16-bit video: every word random (bits outside the value too, which
 * every backend must ignore), both outputs poisoned, every sample
 * compared.  Exact kernels match to the word; others decode within 1, with
 * the bits below an MSB-aligned value written 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "conv-deep-table.h"

typedef struct
{
  const char *name;
  int pixel_stride, n_channels, offsets[4];
  int depth, shift, big_endian;
} DeepLayout;

static const DeepLayout deep_layouts[] = {
  {"GRAY16_LE", 2, 1, {0}, 16, 0, 0},
  {"GRAY16_BE", 2, 1, {0}, 16, 0, 1},
  {"I420_10LE-Y", 2, 1, {0}, 10, 0, 0},
  {"I422_12LE-U", 2, 1, {0}, 12, 0, 0},
  {"P010-Y", 2, 1, {0}, 10, 6, 0},
  {"P010-UV", 4, 2, {0, 2}, 10, 6, 0},
  {"P012-UV", 4, 2, {0, 2}, 12, 4, 0},
  {"P016-UV", 4, 2, {0, 2}, 16, 0, 0},
  {"RGBA64_LE", 8, 3, {0, 2, 4}, 16, 0, 0},
  {"BGRA64_LE", 8, 3, {4, 2, 0}, 16, 0, 0},
  /* no format of GStreamer's: 4-word pixels of 10 bits at bit 6 */
  {"RGBA, 10 bits a word", 8, 3, {0, 2, 4}, 10, 6, 0},
  {"RGBA64_LE, alpha filtered too", 8, 4, {0, 2, 4, 6}, 16, 0, 0},
};

/* D_WIDE: integer weights as large as the depth keeps exact (not in the
 * main loop: run_deep_wide) */
typedef enum
{ D_INT, D_INT_SEPARABLE, D_FLOAT, D_BLUR, D_BOX, D_KINDS, D_WIDE } DeepKind;
static const char *const deep_kind_names[] = { "int", "int-sep", "float",
  "blur", "box", "", "wide"
};

static float *
deep_weights (DeepKind kind, int rows, int cols, int depth)
{
  float *w = malloc (sizeof (float) * rows * cols);
  if (kind == D_WIDE) {
    /* sum |w| up to what max * sum |w| < 2^24 allows, often near it */
    const int limit = (1 << 24) / ((1 << depth) - 1);
    const int sum = rnd () % 2 ? limit - rnd_range (0, limit / 8) :
        rnd_range (1, limit);
    int m = sum / (rows * cols);
    m = m < 1 ? 1 : m > 32767 ? 32767 : m;
    for (int i = 0; i < rows * cols; i++)
      w[i] = (float) rnd_range (-m, m);
    return w;
  }
  float h[KCONV_MAX_KERNEL_SIZE], v[KCONV_MAX_KERNEL_SIZE];
  for (int i = 0; i < cols; i++)
    h[i] = kind == D_INT_SEPARABLE ? rnd_range (-3, 3) :
        0.05f + (float) (rnd () % 1000) / 1000.f;
  for (int i = 0; i < rows; i++)
    v[i] = kind == D_INT_SEPARABLE ? rnd_range (-3, 3) :
        0.05f + (float) (rnd () % 1000) / 1000.f;
  h[rnd () % cols] = kind == D_INT_SEPARABLE ? 2 : 0.75f;
  v[rnd () % rows] = kind == D_INT_SEPARABLE ? -1 : 0.5f;
  for (int i = 0; i < rows * cols; i++)
    w[i] = kind == D_INT ? rnd_range (-4, 4) : kind == D_BOX ? 1.f :
        kind == D_FLOAT ? (float) ((int) (rnd () % 2001) - 1000) / 1000.f :
        v[i / cols] * h[i % cols];
  return w;
}

/* The value a word holds, as the layout reads it */
static int
word_value (const DeepLayout * lay, const uint8_t * p, int *low_bits)
{
  unsigned w = lay->big_endian ? (unsigned) p[0] << 8 | p[1] :
      (unsigned) p[1] << 8 | p[0];
  if (low_bits)
    *low_bits = (int) (w & ((1u << lay->shift) - 1));
  return (int) ((w >> lay->shift) & ((1u << lay->depth) - 1));
}

/* pad: bytes after each row, or -1 for a random even number */
static void
run_deep_case_padded (KConvBackend backend, const DeepLayout * lay, int width,
    int height, int pad, int rows, int cols, DeepKind kind, KConvBorder border,
    double divisor, double offset, int absolute)
{
  const int ps = lay->pixel_stride;
  const ptrdiff_t stride = (ptrdiff_t) width * ps + (pad >= 0 ? pad :
      2 * rnd_range (0, 19));
  const size_t size = (size_t) stride * height;
  uint8_t *src = malloc (size), *ref = malloc (size), *out = malloc (size);
  for (size_t i = 0; i < size; i++)
    src[i] = (uint8_t) rnd ();
  const uint8_t poison_ref = (uint8_t) rnd (), poison_out = poison_ref ^ 0x5a;
  memset (ref, poison_ref, size);
  memset (out, poison_out, size);

  float *w = deep_weights (kind, rows, cols, lay->depth);
  if (kind == D_FLOAT) {
    /* within 1 holds while sum |w / divisor| stays small (kconv.h): a
     * divisor of 1 to 4 times sum |w| (the automatic one can be near 0) */
    double sum = 0;
    for (int i = 0; i < rows * cols; i++)
      sum += fabs (w[i]);
    divisor = sum * (1.0 + (rnd () % 3000) / 1000.0) * (rnd () % 2 ? 1 : -1);
  }
  KConvKernel k = { cols, rows, w, divisor, offset, absolute };
  KConvImage s = { src, width, height, stride, ps, lay->n_channels,
    {lay->offsets[0], lay->offsets[1], lay->offsets[2], lay->offsets[3]},
    0, lay->depth, lay->shift, lay->big_endian
  };
  KConvImage dr = s, dout = s;
  dr.data = ref;
  dout.data = out;
  const int keep = lay->n_channels * 2 < ps && rnd () % 3 == 0;
  dr.keep_other_bytes = dout.keep_other_bytes = keep;

  KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvOptions opt = { backend, 2, -1 };
  KConvFilter *fref = NULL, *f = NULL;
  char what[240];
  snprintf (what, sizeof what, "%s%s %dx%d stride %td, %s kernel %dx%d "
      "(div %g off %g abs %d), border %d", lay->name,
      keep ? " (others kept)" : "", width, height, stride,
      deep_kind_names[kind], cols, rows, divisor, offset, absolute, border);
  KConvStatus st = kconv_filter_new (&k, border, &ref_opt, &fref);
  if (st == KCONV_OK)
    st = kconv_filter_new (&k, border, &opt, &f);
  if (st == KCONV_OK)
    st = kconv_filter_run (fref, &s, &dr);
  if (st == KCONV_OK)
    st = kconv_filter_run (f, &s, &dout);
  CHECK (st == KCONV_OK, "%s: %s (%s)", what, kconv_status_string (st),
      kconv_last_error ());
  if (st != KCONV_OK)
    goto done;

  /* exact at this depth: integer weights with max * sum |w| < 2^24 and a
   * whole divisor and offset */
  double sum_abs = 0;
  int integer = 1;
  for (int i = 0; i < rows * cols; i++) {
    sum_abs += fabs (w[i]);
    integer &= w[i] == floorf (w[i]);
  }
  const int exact = integer && divisor == floor (divisor)
      && offset == floor (offset)
      && ((1 << lay->depth) - 1) * sum_abs < 16777216.0;
  int worst = 0, wx = -1, wy = -1, untouched = 1, low_zero = 1, same = 1;
  int copied = 1;
  for (int y = 0; y < height; y++)
    for (ptrdiff_t i = 0; i < stride; i++) {
      const size_t at = (size_t) y * stride + i;
      int c = -1;
      for (int j = 0; j < lay->n_channels; j++)
        if (i % ps == lay->offsets[j] || i % ps == lay->offsets[j] + 1)
          c = j;
      if (i >= (ptrdiff_t) width * ps || (keep && c < 0)) {
        untouched &= ref[at] == poison_ref && out[at] == poison_out;
        continue;
      }
      /* the bytes no channel covers (alpha): the source's */
      copied &= c >= 0 || (out[at] == src[at] && ref[at] == src[at]);
      if (c < 0 || i % ps != lay->offsets[c])
        continue;
      int low;
      const int a = word_value (lay, ref + at, NULL);
      const int b = word_value (lay, out + at, &low);
      low_zero &= low == 0;
      same &= ref[at] == out[at] && ref[at + 1] == out[at + 1];
      if (abs (a - b) > worst) {
        worst = abs (a - b);
        wx = (int) (i / ps);
        wy = y;
      }
    }
  CHECK (worst <= (exact ? 0 : 1), "%s: differs by %d at (%d,%d)", what,
      worst, wx, wy);
  CHECK (!exact || same, "%s: exact, yet a word differs", what);
  CHECK (low_zero, "%s: bits below the value not 0", what);
  CHECK (untouched, "%s: wrote into row padding or kept bytes", what);
  CHECK (copied, "%s: a byte outside the channels not the source's", what);
done:
  kconv_filter_free (fref);
  kconv_filter_free (f);
  free (w);
  free (src);
  free (ref);
  free (out);
}

static void
run_deep_case (KConvBackend backend, const DeepLayout * lay, int width,
    int height, int rows, int cols, DeepKind kind, KConvBorder border,
    double divisor, double offset, int absolute)
{
  run_deep_case_padded (backend, lay, width, height, -1, rows, cols, kind,
      border, divisor, offset, absolute);
}

/* Frames past 8 MiB, which the CPU writes past its caches: rows that
 * start on a cache line and rows that do not */
static void
run_deep_large (KConvBackend backend)
{
  run_deep_case_padded (backend, &deep_layouts[0], 2048, 2100, 0, 3, 3, D_INT,
      KCONV_BORDER_REFLECT, 0, 0, 0);
  run_deep_case_padded (backend, &deep_layouts[0], 2050, 2100, 4, 3, 3,
      D_BLUR, KCONV_BORDER_REPLICATE, 0, 0, 0);
  run_deep_case_padded (backend, &deep_layouts[8], 1024, 1100, 0, 3, 3,
      D_BLUR, KCONV_BORDER_WRAP, 0, 0, 1);
}

/* 3x3 on 8-byte pixels (RGBA64, BGRA64) with rows 8-byte aligned, where
 * CUDA streams columns: blocks inside the frame and across its edges */
static void
run_deep_pixels64 (KConvBackend backend)
{
  static const DeepKind kinds[] = { D_INT, D_FLOAT, D_BLUR, D_WIDE };
  for (int i = 0; i < 24; i++) {
    const DeepLayout *lay = &deep_layouts[8 + i % 4];
    const DeepKind kind = kinds[i / 3 % 4];
    const int exact = kind == D_INT || kind == D_WIDE;
    run_deep_case_padded (backend, lay, rnd_range (130, 400),
        rnd_range (17, 60), 8 * rnd_range (0, 3), 3, 3, kind,
        (KConvBorder) (rnd () % 4), exact && rnd () % 2 ? rnd_range (2, 9) :
        0, exact ? rnd_range (-128, 128) : 0, (int) (rnd () % 2));
  }
}

/* Separable kernels up to 31x31 on 8-byte pixels with aligned rows, where
 * CUDA filters every word from one read: frames several 224-column
 * blocks wide and 16-row blocks high, in each of its tap classes */
static void
run_deep_separable64 (KConvBackend backend)
{
  static const int sizes[][2] = { {5, 1}, {1, 7}, {7, 5}, {9, 7}, {11, 11},
  {13, 15}, {21, 3}, {19, 21}, {31, 31}, {29, 25}, {1, 31}
  };
  static const DeepKind kinds[] = { D_BLUR, D_INT_SEPARABLE, D_BOX };
  for (int i = 0; i < 33; i++) {
    const DeepLayout *lay = &deep_layouts[8 + i % 4];
    const DeepKind kind = kinds[i / 11];
    const int exact = kind != D_BLUR;
    run_deep_case_padded (backend, lay, rnd_range (200, 700),
        rnd_range (10, 70), 8 * rnd_range (0, 3), sizes[i % 11][0],
        sizes[i % 11][1], kind, (KConvBorder) (rnd () % 4),
        exact && rnd () % 2 ? rnd_range (2, 9) : 0,
        exact ? rnd_range (-128, 128) : 0, (int) (rnd () % 2));
  }
}

/* Integer weights of absolute sum `total` on frames at both ends of the
 * range: either side of what the exact path holds at 16 bits (256 and
 * 257, then computed as an inexact kernel, within 1). */
static void
run_deep_weight_sum (KConvBackend backend, int total)
{
  const DeepLayout *lay = &deep_layouts[0];
  const int n = 5, width = 37, height = 23;
  const size_t size = (size_t) width * height * 2;
  uint8_t *src = malloc (size), *ref = malloc (size), *out = malloc (size);
  for (size_t i = 0; i < size; i += 2)
    src[i] = src[i + 1] = rnd () % 2 ? 0xff : 0;
  float w[25];
  int left = total;
  for (int i = 0; i < n * n; i++) {
    int share = i == n * n - 1 ? left : left / (n * n - i);
    w[i] = (float) (rnd () % 8 ? share : -share);
    left -= share;
  }
  KConvKernel k = { n, n, w, rnd_range (2, 300), rnd_range (-100, 100), 0 };
  KConvImage s = { src, width, height, width * 2, 2, 1, {0}, 0, 16 };
  KConvImage dr = s, dout = s;
  dr.data = ref;
  dout.data = out;
  KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvOptions opt = { backend, 2, -1 };
  KConvFilter *fref = NULL, *f = NULL;
  int ok = kconv_filter_new (&k, KCONV_BORDER_REFLECT, &ref_opt, &fref) ==
      KCONV_OK && kconv_filter_new (&k, KCONV_BORDER_REFLECT, &opt, &f) ==
      KCONV_OK && kconv_filter_run (fref, &s, &dr) == KCONV_OK
      && kconv_filter_run (f, &s, &dout) == KCONV_OK;
  CHECK (ok, "16-bit, sum |w| %d: run", total);
  int worst = 0;
  for (size_t i = 0; ok && i < size; i += 2)
    worst = fmax (worst, abs (word_value (lay, ref + i, NULL) -
            word_value (lay, out + i, NULL)));
  CHECK (worst <= (total <= 256 ? 0 : 1), "16-bit, sum |w| %d (divisor "
      "%g): differs by %d", total, k.divisor, worst);
  kconv_filter_free (fref);
  kconv_filter_free (f);
  free (src);
  free (ref);
  free (out);
}

/* Small integer kernels with weights up to the exact bound, divisors of
 * 2^k and others, either sign, offsets to past the range: the integer
 * lanes' sums, lift and division at their limits */
static void
run_deep_wide (KConvBackend backend)
{
  const int n_layouts = sizeof deep_layouts / sizeof deep_layouts[0];
  for (int i = 0; i < 120; i++) {
    const DeepLayout *lay = &deep_layouts[rnd () % n_layouts];
    const int maxval = (1 << lay->depth) - 1;
    double divisor = rnd () % 2 ? (double) (1 << rnd_range (0, 12)) :
        rnd_range (1, 5000);
    divisor *= rnd () % 4 ? 1 : -1;
    const double offsets[] = { 0, rnd_range (-maxval, maxval),
      rnd_range (-3 * maxval, 3 * maxval), 2147483647.0 - rnd_range (0, 9)
    };
    run_deep_case (backend, lay, rnd_range (1, 90), rnd_range (1, 30),
        rnd_range (1, 7), rnd_range (1, 7), D_WIDE,
        (KConvBorder) (rnd () % 4), divisor, offsets[rnd () % 4] *
        (rnd () % 2 ? 1 : -1), (int) (rnd () % 2));
  }
}

void
conv_deep_table_run (KConvBackend backend, unsigned seed)
{
  static const int sizes[][2] = { {3, 3}, {1, 5}, {5, 1}, {7, 7}, {15, 15},
  {31, 31}
  };
  test_rng_seed (seed);
  const int n_layouts = sizeof deep_layouts / sizeof deep_layouts[0];
  const int n_sizes = sizeof sizes / sizeof sizes[0];
  for (int l = 0; l < n_layouts; l++)
    for (int z = 0; z < n_sizes; z++)
      for (int kind = 0; kind < D_KINDS; kind++) {
        const int exact = kind == D_INT || kind == D_INT_SEPARABLE
            || kind == D_BOX;
        double divisor = 0, offset = 0;
        switch (rnd () % 3) {
          case 0:
            divisor = exact ? rnd_range (1, 40) * (rnd () % 2 ? 1 : -1) :
                0.1 + (rnd () % 800) / 100.0;
            break;
          case 1:
            offset = exact ? rnd_range (-128, 128) :
                (int) (rnd () % 2561) / 10.0 - 128.0;
            break;
          default:
            break;
        }
        run_deep_case (backend, &deep_layouts[l], rnd_range (1, 67),
            rnd_range (1, 41), sizes[z][0], sizes[z][1], kind,
            (KConvBorder) (rnd () % 4), divisor, offset, (int) (rnd () % 2));
      }
  for (int total = 255; total <= 258; total++)
    run_deep_weight_sum (backend, total);
  run_deep_wide (backend);
  run_deep_large (backend);
  run_deep_pixels64 (backend);
  run_deep_separable64 (backend);
}
