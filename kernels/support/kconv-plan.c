/* kconv: kernel analysis (exactness, divisor, separability)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-error.h"
#include "kconv-plan.h"

static int
is_integer (double v)
{
  return isfinite (v) && v == floor (v) && fabs (v) < 2147483647.0;
}

/* A divisor or offset of any size is exact when whole: past what 32 bits
 * hold it is bounded without changing any output (kconv_plan_init). */
static int
is_whole (double v)
{
  return isfinite (v) && v == floor (v);
}

static int64_t
gcd64 (int64_t a, int64_t b)
{
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

/* Splits w (rows x cols) into v (rows) x h (cols) when it has rank 1.  Exact
 * kernels get integer factors (h primitive, so v is integral too) and the
 * product must match to the bit; others match to a relative 1e-6. */
static int
factor_rank_one (const float *w, int rows, int cols, int exact, float *v,
    float *h)
{
  int p = 0, q = 0;
  float maxabs = 0.f;
  for (int i = 0; i < rows * cols; i++)
    if (fabsf (w[i]) > maxabs) {
      maxabs = fabsf (w[i]);
      p = i / cols;
      q = i % cols;
    }
  if (maxabs == 0.f)
    return 0;

  const float *prow = w + p * cols;
  if (exact) {
    int64_t g = 0;
    for (int j = 0; j < cols; j++)
      g = gcd64 (g, (int64_t) prow[j]);
    if (prow[q] < 0)
      g = -g;
    for (int j = 0; j < cols; j++)
      h[j] = (float) ((int64_t) prow[j] / g);
    for (int i = 0; i < rows; i++) {
      int64_t num = (int64_t) w[i * cols + q];
      if (num % (int64_t) h[q] != 0)
        return 0;
      v[i] = (float) (num / (int64_t) h[q]);
      for (int j = 0; j < cols; j++)
        if ((int64_t) v[i] * (int64_t) h[j] != (int64_t) w[i * cols + j])
          return 0;
    }
    return 1;
  }

  for (int j = 0; j < cols; j++)
    h[j] = prow[j];
  for (int i = 0; i < rows; i++) {
    v[i] = (float) ((double) w[i * cols + q] / prow[q]);
    for (int j = 0; j < cols; j++)
      if (fabs ((double) v[i] * h[j] - w[i * cols + j]) > 1e-6 * maxabs)
        return 0;
  }
  return 1;
}

static KConvStatus
plan_init (KConvPlan * plan, const KConvKernel * k, KConvBorder border,
    int depth)
{
  memset (plan, 0, sizeof *plan);
  if (!k || !k->weights)
    return kconv_fail (KCONV_ERROR_INVALID_KERNEL, "no kernel weights");
  if (k->cols < 1 || k->rows < 1 || k->cols > KCONV_MAX_KERNEL_SIZE
      || k->rows > KCONV_MAX_KERNEL_SIZE)
    return kconv_fail (KCONV_ERROR_INVALID_KERNEL, "a kernel of %dx%d: each "
        "side must be 1 to %d", k->cols, k->rows, KCONV_MAX_KERNEL_SIZE);
  if (border < KCONV_BORDER_ZERO || border > KCONV_BORDER_WRAP)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "unknown border mode %d",
        (int) border);
  if (!isfinite (k->divisor) || !isfinite (k->offset))
    return kconv_fail (KCONV_ERROR_INVALID_KERNEL, "the divisor and the "
        "offset must be finite numbers");

  int n = k->cols * k->rows;
  double sum = 0.0, sum_abs = 0.0;
  int all_integer = 1;
  for (int i = 0; i < n; i++) {
    if (!isfinite (k->weights[i]))
      return kconv_fail (KCONV_ERROR_INVALID_KERNEL, "weight %d of the "
          "kernel is not a finite number", i);
    sum += k->weights[i];
    sum_abs += fabs (k->weights[i]);
    all_integer &= is_integer (k->weights[i]);
  }

  double divisor = k->divisor;
  if (divisor == 0.0)
    divisor = fabs (sum) > 1e-9 * sum_abs ? sum : 1.0;

  plan->cols = k->cols;
  plan->rows = k->rows;
  plan->ax = k->cols / 2;
  plan->ay = k->rows / 2;
  plan->border = border;
  plan->absolute = k->absolute != 0;
  plan->depth = depth;
  plan->maxval = (1 << depth) - 1;
  plan->divisor_f = divisor;
  plan->offset_f = k->offset;
  plan->scale = (float) (1.0 / divisor);
  plan->bias = (float) (k->offset + 0.5);
  plan->exact = all_integer && is_whole (divisor) && is_whole (k->offset)
      && plan->maxval * sum_abs < KCONV_EXACT_LIMIT;
  if (plan->exact) {
    /* |sum| < 2^24 / max: from a divisor of 2^25 on every quotient rounds
     * to 0, and past +-(2^24 + 65536) every offset clamps alike, so both are
     * bounded there with the same results and no 32-bit overflow (the
     * finishes add offsets and double divisors) */
    plan->negate = divisor < 0;
    plan->divisor = (int32_t) fmin (fabs (divisor), KCONV_EXACT_MAX_DIVISOR);
    plan->ioffset = (int32_t) fmax (fmin (k->offset, KCONV_EXACT_MAX_OFFSET),
        -KCONV_EXACT_MAX_OFFSET);
  }

  plan->weights = malloc (n * sizeof (float));
  plan->h = malloc (k->cols * sizeof (float));
  plan->v = malloc (k->rows * sizeof (float));
  if (!plan->weights || !plan->h || !plan->v) {
    kconv_plan_clear (plan);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for a "
        "%dx%d kernel", k->cols, k->rows);
  }
  memcpy (plan->weights, k->weights, n * sizeof (float));

  if (k->rows > 1 && k->cols > 1)
    plan->separable = factor_rank_one (plan->weights, k->rows, k->cols,
        plan->exact, plan->v, plan->h);
  if (plan->separable && !plan->exact)
    for (int i = 0; i < k->rows; i++)
      plan->v[i] = (float) (plan->v[i] / divisor);
  return KCONV_OK;
}

KConvStatus
kconv_plan_init (KConvPlan * plan, const KConvKernel * k, KConvBorder border)
{
  return plan_init (plan, k, border, 8);
}

KConvStatus
kconv_plan_init_depth (KConvPlan * deep, const KConvPlan * plan, int depth)
{
  const KConvKernel k = {
    .cols = plan->cols,
    .rows = plan->rows,
    .weights = plan->weights,
    .divisor = plan->divisor_f,
    .offset = ldexp (plan->offset_f, depth - 8),
    .absolute = plan->absolute,
  };
  return plan_init (deep, &k, plan->border, depth);
}

void
kconv_plan_clear (KConvPlan * plan)
{
  free (plan->weights);
  free (plan->h);
  free (plan->v);
  memset (plan, 0, sizeof *plan);
}

int *
kconv_plan_border_map (const KConvPlan * plan, int width)
{
  const int padded = width + plan->cols - 1;
  int *map = malloc ((size_t) padded * sizeof *map);
  if (map)
    for (int x = 0; x < padded; x++)
      map[x] = kconv_border_index (plan->border, x - plan->ax, width);
  return map;
}
