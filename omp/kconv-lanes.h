/* kconv: what the CPU's 16-bit paths share (kconv-fixed.c, kconv-box.c)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exact division of 16-bit lanes by a constant: floor (u / d) for every 0 <= u <= u_max as (u * m) >> (16 + shift), m a
 * magic number of 16 bits, or of 17 (wide: m - 2^16 is kept, and the
 * product's extra u is added without overflow); found once for a kernel,
 * checked for every u it can meet.
 */
#ifndef KCONV_LANES_H
#define KCONV_LANES_H

#include <stddef.h>
#include <stdint.h>
#include "kconv-target.h"

typedef struct
{
  uint16_t magic;
  int shift;
  /* the magic has 17 bits (the top one implied) */
  int wide;
} KConvMagic;

/* The smallest shift that is right for every u, checked one by one; 0
 * where none is. */
static inline int
kconv_magic_find (int d, int u_max, KConvMagic * m)
{
  for (int k = 0; k < 16; k++) {
    const uint64_t v = ((1ull << (16 + k)) + d - 1) / d;
    if (v > 131071 || (v > 65535 && k == 0))
      continue;
    int ok = 1;
    for (int u = 0; u <= u_max && ok; u++)
      ok = (int) (((uint64_t) u * v) >> (16 + k)) == u / d;
    if (ok) {
      m->magic = (uint16_t) (v & 0xffff);
      m->shift = k;
      m->wide = v > 65535;
      return 1;
    }
  }
  return 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static inline KCONV_TARGET_AVX2 __m256i
kconv_magic_divide (__m256i u, const KConvMagic * m)
{
  const __m256i t = _mm256_mulhi_epu16 (u, _mm256_set1_epi16 ((short)
          m->magic));
  if (!m->wide)
    return _mm256_srl_epi16 (t, _mm_cvtsi32_si128 (m->shift));
  /* (t + u) >> shift, as (t + (u - t) / 2) >> (shift - 1): no overflow */
  return _mm256_srl_epi16 (_mm256_add_epi16 (t,
          _mm256_srli_epi16 (_mm256_sub_epi16 (u, t), 1)),
      _mm_cvtsi32_si128 (m->shift - 1));
}

static inline KCONV_TARGET_AVX512BW __m512i
kconv_magic_divide512 (__m512i u, const KConvMagic * m)
{
  const __m512i t = _mm512_mulhi_epu16 (u, _mm512_set1_epi16 ((short)
          m->magic));
  if (!m->wide)
    return _mm512_srl_epi16 (t, _mm_cvtsi32_si128 (m->shift));
  return _mm512_srl_epi16 (_mm512_add_epi16 (t,
          _mm512_srli_epi16 (_mm512_sub_epi16 (u, t), 1)),
      _mm_cvtsi32_si128 (m->shift - 1));
}

/* Output rows go out 32 bytes at a time. */
#define KCONV_CHUNK 32

/* Chunk c of an output row (rest bytes of it, at most KCONV_CHUNK): every
 * byte, or (keep != 0) only the bytes keep marks in each 4-byte pixel, the
 * others from the source row. */
static inline KCONV_TARGET_AVX2 void
kconv_put_chunk (uint8_t * drow, const uint8_t * srow, size_t c, size_t rest,
    __m256i v, uint32_t keep)
{
  if (rest == KCONV_CHUNK) {
    if (keep)
      v = _mm256_blendv_epi8 (_mm256_loadu_si256 ((const __m256i *)
              (srow + c * KCONV_CHUNK)), v, _mm256_set1_epi32 ((int) keep));
    _mm256_storeu_si256 ((__m256i *) (drow + c * KCONV_CHUNK), v);
    return;
  }
  uint8_t tail[KCONV_CHUNK];    /* the row's tail, through a chunk aside */
  _mm256_storeu_si256 ((__m256i *) tail, v);
  const uint8_t *k = (const uint8_t *) &keep;
  for (size_t i = 0; i < rest; i++)
    drow[c * KCONV_CHUNK + i] = !keep || k[i % 4] ? tail[i] :
        srow[c * KCONV_CHUNK + i];
}
#endif

#endif /* KCONV_LANES_H */
