/* kconv: named kernels, borders and rounding against hand-worked values
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kconv.h"
#include "kconv-matrix.h"

static const KConvBackend backends[] = {
  KCONV_BACKEND_REFERENCE, KCONV_BACKEND_CPU
};

/* Convolves a w x h grey image on each CPU backend; returns 1 when every
 * backend gives `expect`. */
static int
convolve_gray (const uint8_t * in, int w, int h, const float *weights,
    int rows, int cols, double divisor, double offset, int absolute,
    KConvBorder border, const uint8_t * expect, const char *what)
{
  int ok = 1;
  for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
    uint8_t out[64];
    memset (out, 0xee, sizeof out);
    KConvKernel k = { cols, rows, weights, divisor, offset, absolute };
    KConvOptions opt = { backends[b], 1, -1 };
    KConvFilter *f = NULL;
    KConvImage src = { (uint8_t *) in, w, h, w, 1, 1, {0}
    };
    KConvImage dst = { out, w, h, w, 1, 1, {0}
    };
    if (kconv_filter_new (&k, border, &opt, &f) != KCONV_OK
        || kconv_filter_run (f, &src, &dst) != KCONV_OK) {
      fprintf (stderr, "%s: %s backend failed\n", what,
          kconv_backend_name (backends[b]));
      ok = 0;
    } else if (memcmp (out, expect, w * h) != 0) {
      fprintf (stderr, "%s (%s):", what, kconv_backend_name (backends[b]));
      for (int i = 0; i < w * h; i++)
        fprintf (stderr, "%s%d/%d", i % w ? " " : "\n  ", out[i], expect[i]);
      fputc ('\n', stderr);
      ok = 0;
    }
    kconv_filter_free (f);
  }
  return ok;
}

static int
named (KConvNamedKernel which, int size, const uint8_t * in,
    const uint8_t * expect, const char *what)
{
  int rows, cols;
  float *w = kconv_named_kernel (which, size, 0.0, &rows, &cols);
  int ok = convolve_gray (in, 5, 5, w, rows, cols, 0.0, 0.0,
      kconv_named_kernel_is_signed (which), KCONV_BORDER_ZERO, expect, what);
  free (w);
  return ok;
}

static void
test_named_on_impulse (void)
{
  /* 100 at the centre of a 5x5 black frame: each output shows the kernel
   * (rotated by 180 degrees, since it is a correlation) times 100 */
  uint8_t imp[25] = { 0 };
  imp[12] = 100;

  static const uint8_t edge[25] = {
    0, 0, 0, 0, 0,
    0, 100, 100, 100, 0,
    0, 100, 255, 100, 0,
    0, 100, 100, 100, 0,
    0, 0, 0, 0, 0,
  };
  static const uint8_t laplacian[25] = {
    0, 0, 0, 0, 0,
    0, 0, 100, 0, 0,
    0, 100, 255, 100, 0,
    0, 0, 100, 0, 0,
    0, 0, 0, 0, 0,
  };
  static const uint8_t sharpen[25] = {
    0, 0, 0, 0, 0,
    0, 0, 0, 0, 0,
    0, 0, 255, 0, 0,
    0, 0, 0, 0, 0,
    0, 0, 0, 0, 0,
  };
  static const uint8_t box[25] = {      /* 100 / 9 = 11.1 */
    0, 0, 0, 0, 0,
    0, 11, 11, 11, 0,
    0, 11, 11, 11, 0,
    0, 11, 11, 11, 0,
    0, 0, 0, 0, 0,
  };
  /* sigma 0.8: g = (0.2390, 0.5220, 0.2390) */
  static const uint8_t gaussian[25] = {
    0, 0, 0, 0, 0,
    0, 6, 12, 6, 0,
    0, 12, 27, 12, 0,
    0, 6, 12, 6, 0,
    0, 0, 0, 0, 0,
  };
  /* the bright pixel is right of (1,2), where the weight is +2 */
  static const uint8_t sobel_x[25] = {
    0, 0, 0, 0, 0,
    0, 100, 0, 100, 0,
    0, 200, 0, 200, 0,
    0, 100, 0, 100, 0,
    0, 0, 0, 0, 0,
  };
  static const uint8_t sobel_y[25] = {
    0, 0, 0, 0, 0,
    0, 100, 200, 100, 0,
    0, 0, 0, 0, 0,
    0, 100, 200, 100, 0,
    0, 0, 0, 0, 0,
  };
  static const uint8_t emboss[25] = {   /* signed: negatives clamp to 0 */
    0, 0, 0, 0, 0,
    0, 200, 100, 0, 0,
    0, 100, 100, 0, 0,
    0, 0, 0, 0, 0,
    0, 0, 0, 0, 0,
  };
  CHECK (named (KCONV_NAMED_IDENTITY, 1, imp, imp, "identity"), "identity");
  CHECK (named (KCONV_NAMED_EDGE, 3, imp, edge, "edge"), "edge");
  CHECK (named (KCONV_NAMED_LAPLACIAN, 3, imp, laplacian, "laplacian"),
      "laplacian");
  CHECK (named (KCONV_NAMED_SHARPEN, 3, imp, sharpen, "sharpen"), "sharpen");
  CHECK (named (KCONV_NAMED_BOX, 3, imp, box, "box 3"), "box 3");
  CHECK (named (KCONV_NAMED_GAUSSIAN, 3, imp, gaussian, "gaussian 3"),
      "gaussian 3");
  CHECK (named (KCONV_NAMED_SOBEL_X, 3, imp, sobel_x, "sobel-x"), "sobel-x");
  CHECK (named (KCONV_NAMED_SOBEL_Y, 3, imp, sobel_y, "sobel-y"), "sobel-y");
  CHECK (named (KCONV_NAMED_EMBOSS, 3, imp, emboss, "emboss"), "emboss");

  /* signed sobel-x: only the pixel left of the spot is positive */
  int rows, cols;
  float *w = kconv_named_kernel (KCONV_NAMED_SOBEL_X, 3, 0, &rows, &cols);
  static const uint8_t sobel_x_signed[25] = {
    0, 0, 0, 0, 0,
    0, 100, 0, 0, 0,
    0, 200, 0, 0, 0,
    0, 100, 0, 0, 0,
    0, 0, 0, 0, 0,
  };
  CHECK (convolve_gray (imp, 5, 5, w, rows, cols, 0, 0, 0, KCONV_BORDER_ZERO,
          sobel_x_signed, "sobel-x signed"), "sobel-x signed");
  free (w);

  /* a flat frame stays flat under every blur, whatever the border */
  uint8_t flat[25];
  memset (flat, 77, sizeof flat);
  for (int b = KCONV_BORDER_REPLICATE; b <= KCONV_BORDER_WRAP; b++) {
    w = kconv_named_kernel (KCONV_NAMED_GAUSSIAN, 5, 1.7, &rows, &cols);
    CHECK (convolve_gray (flat, 5, 5, w, rows, cols, 0, 0, 0, b, flat,
            "flat gaussian"), "flat gaussian, border %d", b);
    free (w);
  }

  /* a gaussian of the least sigma is the identity, never NaN weights
   * (sigma's square underflows below about 1e-162) */
  static const double tiny[] = { 1e-3, 1e-162, 1e-200, 4.9e-324 };
  for (unsigned i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
    w = kconv_named_kernel (KCONV_NAMED_GAUSSIAN, 5, tiny[i], &rows, &cols);
    CHECK (w != NULL, "gaussian sigma %g: no kernel", tiny[i]);
    for (int k = 0; w && k < rows * cols; k++)
      CHECK (w[k] == (k == rows * cols / 2 ? 1.f : 0.f), "gaussian sigma %g: "
          "weight %d is %g", tiny[i], k, w[k]);
    CHECK (convolve_gray (imp, 5, 5, w, rows, cols, 0, 0, 0, KCONV_BORDER_ZERO,
            imp, "tiny gaussian"), "gaussian sigma %g", tiny[i]);
    free (w);
  }
}

/* The table of named kernels holds together: one row a kernel, in enum
 * order, names unique, weights as the row says, and the signed ones (whose
 * natural display is |v|) exactly those whose weights sum to 0. */
static void
test_named_table (void)
{
  CHECK (kconv_named_kernel_info (KCONV_NAMED_COUNT) == NULL
      && kconv_named_kernel_info ((KConvNamedKernel) - 1) == NULL,
      "a kernel past the table");
  for (int i = 0; i < KCONV_NAMED_COUNT; i++) {
    const KConvNamedKernelInfo *k = kconv_named_kernel_info (i);
    CHECK (k && (int) k->id == i && k->nick && k->nick[0] && k->description,
        "row %d of the named kernels", i);
    if (!k)
      continue;
    for (int j = 0; j < i; j++)
      CHECK (strcmp (kconv_named_kernel_info (j)->nick, k->nick) != 0,
          "two named kernels called %s", k->nick);
    int rows, cols;
    float *w = kconv_named_kernel (i, 5, 0, &rows, &cols);
    CHECK (w && (k->sized ? rows == 5 && cols == 5 : rows == k->rows
            && cols == k->cols), "%s: its weights", k->nick);
    double sum = 0;
    for (int t = 0; w && t < rows * cols; t++)
      sum += w[t];
    CHECK (k->is_signed == (fabs (sum) < 1e-6)
        && kconv_named_kernel_is_signed (i) == k->is_signed,
        "%s: signed %d, its weights sum to %g", k->nick, k->is_signed, sum);
    free (w);
  }
}

static void
test_borders (void)
{
  static const uint8_t row[4] = { 10, 20, 30, 40 };
  static const float left[3] = { 1, 0, 0 };     /* out(x) = in(x - 1) */
  static const float right[3] = { 0, 0, 1 };    /* out(x) = in(x + 1) */
  static const uint8_t expect_left[4][4] = {
    {0, 10, 20, 30},            /* zero */
    {10, 10, 20, 30},           /* replicate */
    {20, 10, 20, 30},           /* reflect */
    {40, 10, 20, 30},           /* wrap */
  };
  static const uint8_t expect_right[4][4] = {
    {20, 30, 40, 0},
    {20, 30, 40, 40},
    {20, 30, 40, 30},
    {20, 30, 40, 10},
  };
  for (int b = 0; b < 4; b++) {
    CHECK (convolve_gray (row, 4, 1, left, 1, 3, 1, 0, 0, b, expect_left[b],
            "left"), "left neighbour, border %d", b);
    CHECK (convolve_gray (row, 4, 1, right, 1, 3, 1, 0, 0, b,
            expect_right[b], "right"), "right neighbour, border %d", b);
  }
  /* a column works the same way */
  static const float up[3] = { 1, 0, 0 };
  CHECK (convolve_gray (row, 1, 4, up, 3, 1, 1, 0, 0, KCONV_BORDER_REFLECT,
          expect_left[2], "up"), "upper neighbour, reflect");

  /* reflect when the kernel is wider than the frame: period 2 (n - 1) */
  static const uint8_t two[2] = { 5, 9 };
  float far_left[7] = { 1, 0, 0, 0, 0, 0, 0 };  /* in(x - 3) */
  static const uint8_t expect_two[2] = { 9, 5 };        /* -3 -> 1, -2 -> 0 */
  CHECK (convolve_gray (two, 2, 1, far_left, 1, 7, 1, 0, 0,
          KCONV_BORDER_REFLECT, expect_two, "reflect far"), "reflect far");
}

static void
test_rounding (void)
{
  /* [1 1] / 2 reads (x - 1, x): halves go up */
  static const uint8_t in[3] = { 1, 2, 4 };
  static const float pair[2] = { 1, 1 };
  static const uint8_t halves[3] = { 2, 2, 3 }; /* (2+1)/2 reflected, 1.5, 3 */
  CHECK (convolve_gray (in, 3, 1, pair, 1, 2, 2, 0, 0, KCONV_BORDER_REFLECT,
          halves, "halves"), "halves round up");

  /* -3 / 2 = -1.5 -> -1; + 10 -> 9 (signed), |..| -> 1.5 -> 2 + 10 = 12 */
  static const uint8_t three[1] = { 3 };
  static const float minus[1] = { -1 };
  static const uint8_t nine[1] = { 9 }, twelve[1] = { 12 }, zero[1] = { 0 };
  CHECK (convolve_gray (three, 1, 1, minus, 1, 1, 2, 10, 0, KCONV_BORDER_ZERO,
          nine, "negative half"), "negative half rounds up");
  CHECK (convolve_gray (three, 1, 1, minus, 1, 1, 2, 10, 1, KCONV_BORDER_ZERO,
          twelve, "absolute"), "absolute before offset");
  CHECK (convolve_gray (three, 1, 1, minus, 1, 1, 2, 0, 0, KCONV_BORDER_ZERO,
          zero, "clamp"), "negative clamps to 0");
  /* divisors and offsets far past what 32 bits hold in the exact
   * finishes: every quotient rounds to 0, every offset clamps */
  static const uint8_t full[1] = { 255 }, seven[1] = { 7 };
  static const float one[1] = { 1 };
  static const struct
  {
    double divisor, offset;
    const uint8_t *expect;
  } extreme[] = {
    {1073741824.0, 0, zero}, {1073741824.0, 7, seven},
    {-2147483648.0, 0, zero}, {4294967296.0, 7, seven}, {1e30, 0, zero},
    {-1e30, 7, seven}, {1, 1073741824.0, full}, {1, -1073741824.0, zero},
    {1, 2147483647.0, full}, {1, -3e9, zero}, {1, 1e30, full},
    {3, -1e30, zero},
  };
  for (unsigned i = 0; i < sizeof extreme / sizeof extreme[0]; i++)
    CHECK (convolve_gray (full, 1, 1, one, 1, 1, extreme[i].divisor,
            extreme[i].offset, 0, KCONV_BORDER_ZERO, extreme[i].expect,
            "extreme"), "divisor %g, offset %g", extreme[i].divisor,
        extreme[i].offset);

  /* a negative divisor flips the sign: -3 / -2 = 1.5 -> 2 */
  static const uint8_t two[1] = { 2 };
  CHECK (convolve_gray (three, 1, 1, minus, 1, 1, -2, 0, 0, KCONV_BORDER_ZERO,
          two, "negative divisor"), "negative divisor");

  /* even sizes: the anchor is (cols / 2, rows / 2), so the top-left weight of
   * a 2x2 kernel reads (x - 1, y - 1) */
  static const uint8_t sq[4] = { 1, 2, 3, 4 };
  static const float tl[4] = { 1, 0, 0, 0 };
  static const uint8_t shifted[4] = { 0, 0, 0, 1 };
  CHECK (convolve_gray (sq, 2, 2, tl, 2, 2, 1, 0, 0, KCONV_BORDER_ZERO,
          shifted, "even anchor"), "even-size anchor");
}

static void
test_api_errors (void)
{
  float w[1] = { 1 };
  KConvFilter *f = NULL;
  KConvKernel k = { 122, 1, w, 0, 0, 0 };
  CHECK (kconv_filter_new (&k, KCONV_BORDER_ZERO, NULL, &f) ==
      KCONV_ERROR_INVALID_KERNEL && f == NULL, "122 columns refused");
  k.cols = 1;
  k.divisor = NAN;
  CHECK (kconv_filter_new (&k, KCONV_BORDER_ZERO, NULL, &f) ==
      KCONV_ERROR_INVALID_KERNEL, "NaN divisor refused");
  k.divisor = 0;
  w[0] = INFINITY;
  CHECK (kconv_filter_new (&k, KCONV_BORDER_ZERO, NULL, &f) ==
      KCONV_ERROR_INVALID_KERNEL, "infinite weight refused");
  w[0] = 1;
  KConvOptions cuda = { KCONV_BACKEND_CUDA, 0, -1 };
  if (!kconv_backend_available (KCONV_BACKEND_CUDA))
    CHECK (kconv_filter_new (&k, KCONV_BORDER_ZERO, &cuda, &f) ==
        KCONV_ERROR_BACKEND_UNAVAILABLE && f == NULL,
        "cuda without a GPU is refused, not run on the CPU");

  CHECK (kconv_filter_new (&k, KCONV_BORDER_ZERO, NULL, &f) == KCONV_OK,
      "create");
  uint8_t buf[16];
  KConvImage a = { buf, 2, 2, 2, 1, 1, {0}
  }, b = a;
  CHECK (kconv_filter_run (f, &a, &b) == KCONV_ERROR_INVALID_ARGUMENT,
      "in-place refused");
  b.data = buf + 8;
  b.width = 3;
  CHECK (kconv_filter_run (f, &a, &b) == KCONV_ERROR_INVALID_ARGUMENT,
      "size mismatch refused");
  kconv_filter_free (f);
  for (int s = KCONV_OK; s <= KCONV_ERROR_DEVICE; s++)
    CHECK (strlen (kconv_status_string (s)) > 5, "status %d has a string", s);
}

int
main (void)
{
  test_named_table ();
  test_named_on_impulse ();
  test_borders ();
  test_rounding ();
  test_api_errors ();
  return check_summary ();
}
