/* kconv: kernels as text, and the named kernels
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE
#include <locale.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-matrix.h"
#include "kconv-error.h"

static int
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *
skip_spaces (const char *p)
{
  while (is_space (*p))
    p++;
  return p;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale (void)
{
  c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
}

/* strtod in the C locale, so "0.5" means a half in every locale */
double
kconv_strtod_c (const char *s, char **end)
{
  pthread_once (&c_locale_once, make_c_locale);
  return c_locale ? strtod_l (s, end, c_locale) : strtod (s, end);
}

/* The grammar (whitespace: spaces, tabs, newlines):
 *   matrix = ws row { ws ';' ws row } ws
 *   row    = number { ( ws ',' ws | whitespace ) number }
 * Every row has a value and the same number of them; nothing is empty: no
 * ";;", no ";" at the end, no ",," and no ',' at either end of a row. */
/* The bytes of the first (at most) 32 characters of a value of len bytes
 * quoted in a message: UTF-8 is never cut inside a character (a byte
 * that starts none counts as one). */
static int
excerpt_bytes (const char *p, int len)
{
  int i = 0;
  for (int chars = 0; i < len && chars < 32; chars++) {
    const unsigned char c = (unsigned char) p[i];
    const int n = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : 1;
    if (i + n > len)
      break;
    i += n;
  }
  return i;
}

int
kconv_matrix_parse (const char *text, float **weights, int *rows, int *cols,
    char *err, size_t err_size)
{
  float *w = NULL;
  int n = 0, cap = 0, r = 0, c0 = -1;
  const char *p = skip_spaces (text ? text : "");

  *weights = NULL;
  if (*p == '\0') {
    snprintf (err, err_size, "the matrix is empty");
    return -1;
  }
  for (;;) {
    /* one row: values up to ';' or the end */
    int c = 0;
    for (;;) {
      p = skip_spaces (p);
      if (*p == ';' || *p == '\0' || *p == ',') {
        if (c == 0 && *p != ',')
          snprintf (err, err_size, *p == ';' || r == 0 ? "row %d is empty"
              : "row %d is empty (the matrix ends with ';')", r + 1);
        else
          snprintf (err, err_size, "row %d: a value is missing %s ','",
              r + 1, *p == ',' && c == 0 ? "before" : "after");
        goto fail;
      }
      char *end;
      double v = kconv_strtod_c (p, &end);
      if (end == p || (!is_space (*end) && *end != ',' && *end != ';'
              && *end != '\0')) {
        int len = (int) strcspn (p, " \t\r\n,;");
        snprintf (err, err_size, "'%.*s' in row %d is not a number",
            excerpt_bytes (p, len), p, r + 1);
        goto fail;
      }
      if (!isfinite (v) || fabs (v) > 3.4e38) {
        /* (weights are floats) */
        snprintf (err, err_size, isfinite (v) ? "'%.*s' in row %d is beyond "
            "a weight's range (-3.4e38 to 3.4e38)" :
            "'%.*s' in row %d is not a finite number",
            excerpt_bytes (p, (int) (end - p)), p, r + 1);
        goto fail;
      }
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        float *nw = realloc (w, cap * sizeof (float));
        if (!nw) {
          snprintf (err, err_size, "out of memory");
          goto fail;
        }
        w = nw;
      }
      w[n++] = (float) v;
      c++;
      p = skip_spaces (end);
      if (*p == ',') {
        p++;                    /* one comma, then a value must follow */
        continue;
      }
      if (*p == ';' || *p == '\0')
        break;
    }
    if (c0 >= 0 && c != c0) {
      snprintf (err, err_size, "row %d has %d values but row 1 has %d",
          r + 1, c, c0);
      goto fail;
    }
    c0 = c;
    r++;
    if (c > KCONV_MAX_KERNEL_SIZE || r > KCONV_MAX_KERNEL_SIZE) {
      snprintf (err, err_size, "the matrix is larger than %dx%d",
          KCONV_MAX_KERNEL_SIZE, KCONV_MAX_KERNEL_SIZE);
      goto fail;
    }
    if (*p == '\0')
      break;
    p++;                        /* past ';' */
  }
  *weights = w;
  *rows = r;
  *cols = c0;
  return 0;

fail:
  free (w);
  return -1;
}

static void
format_float (char *buf, size_t size, float v)
{
  static locale_t c_locale;
  if (!c_locale)
    c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  locale_t old = c_locale ? uselocale (c_locale) : (locale_t) 0;
  for (int digits = 6; digits <= 9; digits++) {
    snprintf (buf, size, "%.*g", digits, v);
    if ((float) kconv_strtod_c (buf, NULL) == v)
      break;
  }
  if (old)
    uselocale (old);
}

char *
kconv_matrix_format (const float *w, int rows, int cols)
{
  size_t size = (size_t) rows * cols * 18 + 1;
  char *out = malloc (size), *o = out;
  if (!out)
    return NULL;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      char num[32];
      format_float (num, sizeof num, w[r * cols + c] == 0.f ? 0.f :
          w[r * cols + c]);
      o += sprintf (o, "%s%s", c > 0 ? " " : r > 0 ? "; " : "", num);
    }
  *o = '\0';
  return out;
}

double
kconv_gaussian_default_sigma (int size)
{
  return 0.3 * ((size - 1) * 0.5 - 1.0) + 0.8;
}

static const float identity[] = { 1 };
static const float edge[] = { -1, -1, -1, -1, 8, -1, -1, -1, -1 };
static const float laplacian[] = { 0, 1, 0, 1, -4, 1, 0, 1, 0 };
static const float sharpen[] = { 0, -1, 0, -1, 5, -1, 0, -1, 0 };
static const float sobel_x[] = { -1, 0, 1, -2, 0, 2, -1, 0, 1 };
static const float sobel_y[] = { -1, -2, -1, 0, 0, 0, 1, 2, 1 };
static const float emboss[] = { -2, -1, 0, -1, 1, 1, 0, 1, 2 };

/* The one list of named kernels: a new one is a row here and a value in
 * KConvNamedKernel (kconv-matrix.h), in the same place. */
static const KConvNamedKernelInfo named_kernels[KCONV_NAMED_COUNT] = {
  {KCONV_NAMED_IDENTITY, "identity", "Identity (passthrough)", 0, 0, 1, 1,
      identity},
  {KCONV_NAMED_EDGE, "edge", "Edges, 8-neighbour Laplacian", 0, 1, 3, 3,
      edge},
  {KCONV_NAMED_LAPLACIAN, "laplacian", "Laplacian, 4-neighbour", 0, 1, 3, 3,
      laplacian},
  {KCONV_NAMED_SHARPEN, "sharpen", "Sharpen", 0, 0, 3, 3, sharpen},
  {KCONV_NAMED_BOX, "box", "Box blur of kernel-size", 1, 0, 0, 0, NULL},
  {KCONV_NAMED_GAUSSIAN, "gaussian", "Gaussian blur of kernel-size and sigma",
      1, 0, 0, 0, NULL},
  {KCONV_NAMED_SOBEL_X, "sobel-x", "Sobel, horizontal gradient", 0, 1, 3, 3,
      sobel_x},
  {KCONV_NAMED_SOBEL_Y, "sobel-y", "Sobel, vertical gradient", 0, 1, 3, 3,
      sobel_y},
  {KCONV_NAMED_EMBOSS, "emboss", "Emboss", 0, 0, 3, 3, emboss},
};

const KConvNamedKernelInfo *
kconv_named_kernel_info (KConvNamedKernel which)
{
  if ((int) which < 0 || which >= KCONV_NAMED_COUNT)
    return NULL;
  return &named_kernels[which];
}

float *
kconv_named_kernel (KConvNamedKernel which, int size, double sigma,
    int *rows, int *cols)
{
  const KConvNamedKernelInfo *k = kconv_named_kernel_info (which);
  if (!k) {
    kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no named kernel %d", which);
    return NULL;
  }
  if (!k->sized) {
    float *w = malloc (k->rows * k->cols * sizeof (float));
    if (!w) {
      kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
      return NULL;
    }
    memcpy (w, k->weights, k->rows * k->cols * sizeof (float));
    *rows = k->rows;
    *cols = k->cols;
    return w;
  }

  if (size < 1 || size > KCONV_MAX_KERNEL_SIZE || size % 2 == 0) {
    kconv_fail (KCONV_ERROR_INVALID_KERNEL, "a %s of size %d: the size must "
        "be odd, 1 to %d", k->nick, size, KCONV_MAX_KERNEL_SIZE);
    return NULL;
  }
  float *w = malloc (size * size * sizeof (float));
  if (!w) {
    kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  *rows = *cols = size;
  if (which == KCONV_NAMED_BOX) {
    for (int i = 0; i < size * size; i++)
      w[i] = 1.f;
    return w;
  }

  /* gaussian: outer product of a normalised 1D bell */
  double g[KCONV_MAX_KERNEL_SIZE], sum = 0.0;
  if (sigma <= 0.0)
    sigma = kconv_gaussian_default_sigma (size);
  for (int i = 0; i < size; i++) {
    /* d / sigma first: a sigma so small that its square underflows gives
     * a bell of one tap (1 at the centre, 0 elsewhere), not 0 / 0 */
    double t = (i - size / 2) / sigma;
    g[i] = exp (-0.5 * t * t);
    sum += g[i];
  }
  for (int r = 0; r < size; r++)
    for (int c = 0; c < size; c++)
      w[r * size + c] = (float) (g[r] / sum * (g[c] / sum));
  return w;
}

int
kconv_named_kernel_is_signed (KConvNamedKernel which)
{
  const KConvNamedKernelInfo *k = kconv_named_kernel_info (which);
  return k && k->is_signed;
}
