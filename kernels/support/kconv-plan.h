/* kconv: what every backend needs to know about a kernel, worked out once
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_PLAN_H
#define KCONV_PLAN_H

#include <math.h>
#include "kconv.h"

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* max * sum |w| (max: the largest sample, 255 at 8 bits) must stay below
 * this for every partial sum to be an exact integer in single precision. */
#define KCONV_EXACT_LIMIT 16777216.0
/* Exact kernels' divisor and offset as the integer paths hold them: larger
 * ones give the same outputs (see kconv_plan_init). */
#define KCONV_EXACT_MAX_DIVISOR 33554432.0
#define KCONV_EXACT_MAX_OFFSET (16777216.0 + 65536.0)

typedef struct
{
  int cols, rows;
  int ax, ay;                   /* anchor: cols / 2, rows / 2 */
  KConvBorder border;
  int absolute;
  int depth;                    /* the samples' bits: 8 .. 16 */
  int32_t maxval;               /* the largest sample: 2^depth - 1 */

  float *weights;               /* rows * cols, as given */

  /* Exact kernels: out = clamp (round_half_up (sign * s / divisor) + offset) */
  int exact;
  int32_t divisor;              /* > 0 */
  int32_t negate;               /* the given divisor was negative */
  int32_t ioffset;

  /* Inexact kernels: out = clamp (floor (s * scale (or |..|) + bias)) */
  float scale;                  /* 1 / divisor */
  float bias;                   /* offset + 0.5 */
  double divisor_f;             /* the resolved divisor, never 0 */
  double offset_f;

  /* Rank 1: weights[r][c] == v[r] * h[c].  Exact kernels get integer
   * factors; inexact ones carry the divisor in v. */
  int separable;
  float *h;                     /* cols */
  float *v;                     /* rows */
} KConvPlan;

KConvStatus kconv_plan_init (KConvPlan * plan, const KConvKernel * kernel,
    KConvBorder border);
/* The plan of an 8-bit plan's kernel for samples of `depth` bits: its
 * offset scaled by 2^(depth - 8), exact where max * sum |w| allows. */
KConvStatus kconv_plan_init_depth (KConvPlan * deep, const KConvPlan * plan,
    int depth);
void kconv_plan_clear (KConvPlan * plan);

/* The source column each column of a row padded for the plan reads (x -
 * ax, by its border rule, for x < width + cols - 1; -1 for a zero): a
 * malloc'd array, NULL when out of memory. */
int *kconv_plan_border_map (const KConvPlan * plan, int width);

#ifdef __CUDACC__
#define KCONV_HOST_DEVICE __host__ __device__
#define KCONV_OUT_OF_LINE __noinline__
#else
#define KCONV_HOST_DEVICE
#define KCONV_OUT_OF_LINE __attribute__ ((noinline, unused))
#endif

/* Out-of-frame coordinates only.  Kept out of line so that the common,
 * in-frame case is a real branch around it rather than predicated modulo
 * arithmetic on every sample (on the GPU especially). */
static KCONV_HOST_DEVICE KCONV_OUT_OF_LINE int
kconv_border_outside (int border, int i, int n)
{
  switch (border) {
    case KCONV_BORDER_ZERO:
      return -1;
    case KCONV_BORDER_REPLICATE:
      return i < 0 ? 0 : n - 1;
    case KCONV_BORDER_REFLECT:{
      if (n == 1)
        return 0;
      int period = 2 * (n - 1);
      i %= period;
      if (i < 0)
        i += period;
      return i < n ? i : period - i;
    }
    case KCONV_BORDER_WRAP:
    default:
      i %= n;
      return i < 0 ? i + n : i;
  }
}

/* Where coordinate i (any integer) reads from in [0, n), or -1 for a zero. */
static inline KCONV_HOST_DEVICE int
kconv_border_index (int border, int i, int n)
{
  return (unsigned) i < (unsigned) n ? i : kconv_border_outside (border, i, n);
}

/* The smallest n' >= n with no prime factor above 7: sizes FFT libraries
 * transform fast. */
static inline int
kconv_fft_size (int n)
{
  for (;; n++) {
    int m = n;
    for (int p = 2; p <= 7; p++)
      while (m % p == 0)
        m /= p;
    if (m == 1)
      return n;
  }
}

/* floor (a / b) for b > 0 */
static inline int64_t
kconv_floor_div (int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int32_t
kconv_clamp (int64_t v, int32_t maxval)
{
  return v < 0 ? 0 : v > maxval ? maxval : (int32_t) v;
}

/* The exact rule, for a sum s computed without error: 0 .. plan->maxval */
static inline int32_t
kconv_finish_exact (const KConvPlan * plan, int64_t s)
{
  if (plan->negate)
    s = -s;
  if (plan->absolute && s < 0)
    s = -s;
  int64_t d = plan->divisor;
  return kconv_clamp (kconv_floor_div (2 * s + d, 2 * d) + plan->ioffset,
      plan->maxval);
}

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_PLAN_H */
