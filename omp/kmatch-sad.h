/* kconv: the rows of absolute differences every CPU search is made of
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_SAD_H
#define KMATCH_SAD_H

#include <stdint.h>

/* Hot loops are built for AVX-512, AVX2 and plain x86-64, picked at load
 * (ifunc resolvers; not under ThreadSanitizer, whose runtime is not up yet
 * when they run). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && !defined(__SANITIZE_THREAD__)
#define KMATCH_MULTIVERSION \
  __attribute__((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define KMATCH_MULTIVERSION
#endif

/* One row of differences: the loop compilers turn into psadbw. */
static inline uint32_t
kmatch_sad_row (const uint8_t * restrict a, const uint8_t * restrict b, int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t) (d < 0 ? -d : d);
  }
  return s;
}

/* The same with a mask: the frame's bytes where the template does not
 * count become 0, as the template's are. */
static inline uint32_t
kmatch_sad_row_masked (const uint8_t * restrict a, const uint8_t * restrict b,
    const uint8_t * restrict m, int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++) {
    int d = (a[i] & m[i]) - b[i];
    s += (uint32_t) (d < 0 ? -d : d);
  }
  return s;
}

/* The same for 16-bit values (a row of at most 65537 of them), with a
 * mask of a byte a sample */
static inline uint32_t
kmatch_sad_row_deep (const uint16_t * restrict a, const uint16_t * restrict b,
    int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t) (d < 0 ? -d : d);
  }
  return s;
}

static inline uint32_t
kmatch_sad_row_deep_masked (const uint16_t * restrict a,
    const uint16_t * restrict b, const uint8_t * restrict m, int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++) {
    int d = (m[i] ? a[i] : 0) - b[i];
    s += (uint32_t) (d < 0 ? -d : d);
  }
  return s;
}

#endif /* KMATCH_SAD_H */
