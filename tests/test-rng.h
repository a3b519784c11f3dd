/* kconv: the tests' random numbers, the same sequence on every machine
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_TEST_RNG_H
#define KCONV_TEST_RNG_H

static unsigned test_rng_state;

static inline void
test_rng_seed (unsigned seed)
{
  test_rng_state = seed;
}

static inline unsigned
rnd (void)
{
  test_rng_state = test_rng_state * 1664525u + 1013904223u;
  return test_rng_state >> 8;
}

/* lo .. hi inclusive */
static inline int
rnd_range (int lo, int hi)
{
  return lo + (int) (rnd () % (unsigned) (hi - lo + 1));
}

#endif
