/* kconv: an exact sum divided by its divisor, rounded half up, in a
 * multiply-high and a shift (the CUDA backend's exact paths)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * round_half_up (s / d) = floor ((2s + d) / 2d) = floor ((s + floor (d / 2))
 * / d): for odd d the two numerators, 2s + d and 2s + d - 1, lie below the
 * same multiple of 2d.  Exact sums are below 2^24 in size (kconv-plan.h),
 * so k d more (k = ceil (2^24 / d)) makes the numerator a never negative
 * and below 2^27.  With magic = ceil (2^p / d), p = 32 + shift and
 * 2^p >= 2^27 d, a magic / 2^p errs from a / d by less than 1 / d, so its
 * floor is floor (a / d) exactly; the least such shift keeps the magic
 * below 2^32.  For d > 2^25 the quotient is always 0 (a sum is less than
 * half of d in size): magic 0.  d = 1 never divides.
 */
#ifndef KCONV_INT_DIVISION_H
#define KCONV_INT_DIVISION_H

#include <stdint.h>

typedef struct
{
  uint32_t magic;
  int32_t shift;
  int32_t add;                  /* floor (d / 2) + k d, added to the sum */
  int32_t offset;               /* the output offset less k */
} KConvIntDivision;

/* The constants for a divisor d >= 2 and the output offset ioffset */
static inline KConvIntDivision
kconv_int_division (int32_t d, int32_t ioffset)
{
  KConvIntDivision v = { 0, 0, 0, ioffset };
  if (d < 2 || d > (1 << 25))
    return v;
  const int32_t k = ((1 << 24) + d - 1) / d;
  v.add = d / 2 + k * d;
  while (((uint64_t) 1 << (32 + v.shift)) < ((uint64_t) d << 27))
    v.shift++;
  v.magic = (uint32_t) ((((uint64_t) 1 << (32 + v.shift)) + d - 1) / d);
  v.offset = ioffset - k;
  return v;
}

/* round_half_up (s / d) + ioffset for the sum s plus v->add, as the GPU
 * computes it (__umulhi, then the shift) */
static inline int32_t
kconv_int_divide_added (const KConvIntDivision * v, int32_t a)
{
  const uint32_t high = (uint32_t) (((uint64_t) (uint32_t) a * v->magic) >> 32);
  return (int32_t) (high >> v->shift) + v->offset;
}

#endif /* KCONV_INT_DIVISION_H */
