/* kconv: the CUDA backend's division of an exact sum (a multiply-high and
 * a shift, kconv-int-division.h) against floor ((2s + d) / 2d) in 64 bits:
 * every divisor up to 4096 and around each power of two, random others up
 * to the largest a plan keeps; sums at both ends of their range, around
 * some 130 rounding boundaries spread across it and at random; every sum
 * for a few divisors.
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdint.h>
#include "check.h"
#include "kconv-int-division.h"
#include "kconv-plan.h"
#include "test-rng.h"

#define SUM_LIMIT (1 << 24)     /* exact sums are below it in size */

static long checked, wrong;

/* rnd gives 24 bits */
static uint32_t
rnd32 (void)
{
  return rnd () << 8 ^ rnd ();
}

/* round_half_up (s / d) */
static int32_t
reference (int32_t s, int32_t d)
{
  const int64_t n = 2 * (int64_t) s + d, dd = 2 * (int64_t) d;
  return (int32_t) (n >= 0 ? n / dd : -((-n + dd - 1) / dd));
}

static void
check_sum (const KConvIntDivision * v, int32_t d, int32_t offset, int64_t s)
{
  if (s <= -SUM_LIMIT || s >= SUM_LIMIT)
    return;
  const int32_t got = kconv_int_divide_added (v, (int32_t) s + v->add);
  const int32_t want = reference ((int32_t) s, d) + offset;
  checked++;
  if (got != want && wrong++ < 10)
    CHECK (0, "divisor %d, offset %d, sum %lld: %d, not %d", d, offset,
        (long long) s, got, want);
}

static void
check_divisor (int32_t d)
{
  const int32_t offset = (int32_t) (rnd () % 601) - 300;
  const KConvIntDivision v = kconv_int_division (d, offset);
  CHECK (v.magic != 0 || d > (1 << 25), "divisor %d: no magic", d);
  for (int o = 0; o < 16; o++) {
    check_sum (&v, d, offset, -SUM_LIMIT + 1 + o);
    check_sum (&v, d, offset, SUM_LIMIT - 1 - o);
  }
  /* the boundaries: multiples of d and the halves between them */
  const int64_t steps = SUM_LIMIT / d + 1, stride = steps / 64 + 1;
  for (int64_t m = -steps; m <= steps; m += stride)
    for (int o = -2; o <= 2; o++) {
      check_sum (&v, d, offset, m * d + o);
      check_sum (&v, d, offset, m * d + d / 2 + o);
    }
  for (int r = 0; r < 256; r++)
    check_sum (&v, d, offset, (int64_t) (rnd32 () % (2 * SUM_LIMIT)) -
        SUM_LIMIT);
}

int
main (void)
{
  for (int32_t d = 2; d <= 4096; d++)
    check_divisor (d);
  for (int e = 12; e <= 26; e++)
    for (int o = -3; o <= 3; o++)
      check_divisor ((1 << e) + o);
  for (int i = 0; i < 4096; i++)
    check_divisor (2 + (int32_t) (rnd32 () % ((uint32_t)
                KCONV_EXACT_MAX_DIVISOR - 1)));
  /* every sum */
  const int32_t whole[] = { 3, 255, (int32_t) KCONV_EXACT_MAX_DIVISOR };
  for (int i = 0; i < 3; i++) {
    const KConvIntDivision v = kconv_int_division (whole[i], 0);
    for (int32_t s = -SUM_LIMIT + 1; s < SUM_LIMIT; s++)
      check_sum (&v, whole[i], 0, s);
  }
  CHECK (wrong == 0, "%ld of %ld quotients wrong", wrong, checked);
  printf ("%ld quotients checked\n", checked);
  return check_summary ();
}
