/* kconv: small kernels on 16-bit words (kconv-words.c), for one vector width
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Included once a width, after defining
 *   WORDS_TARGET      the function attribute of the instruction set
 *   WORDS_NAME(x)     the name of function x for it
 *   VEC, V_(op)       the vector type and its intrinsics' prefix
 *   V_LANES           16-bit lanes a vector
 *   V_ZERO, V_LOAD(p), V_STORE(p, v), V_OR(a, b)
 *   V_GT(a, b)        a > b in signed 32-bit lanes, as -1 / 0
 *   V_KEEP(v, s, k)   v with word k of each 4-word pixel taken from s
 *   VECF, V_ABS_PS(a) the float vector, |a|
 *   V_ORDER(v)        the words of packus_epi32 (a, b) in a's then b's order
 *   V_WIDEN_PS(p)     V_LANES / 2 unsigned words from p as floats
 *   V_AND(a, b)       a & b
 *   V_WIDEN_LO_PS(v), V_WIDEN_HI_PS(v)  v's first and second V_LANES / 2
 *                     unsigned words as floats
 */

/* The rule in kconv.h, in 32-bit lanes, for s the sum over lifted samples */
WORDS_TARGET static inline VEC
WORDS_NAME (finish) (VEC s, const KConvWordTaps * w)
{
  s = V_ (add_epi32) (s, V_ (set1_epi32) (w->lift));
  if (w->negate)
    s = V_ (sub_epi32) (V_ZERO, s);
  if (w->absolute)
    s = V_ (abs_epi32) (s);
  VEC q;
  if (w->divide) {
    /* floor ((2 s + d) / 2d): a float estimate (2 s + d < 2^24, so off by
     * at most one), then corrected both ways */
    const VEC two_d = V_ (set1_epi32) (w->two_d);
    const VEC num = V_ (add_epi32) (V_ (add_epi32) (s, s),
        V_ (set1_epi32) (w->divisor));
    q = V_ (cvttps_epi32) (V_ (mul_ps) (V_ (cvtepi32_ps) (num),
            V_ (set1_ps) (w->inv_two_d)));
    for (int k = 0; k < 2; k++) {
      const VEC r = V_ (sub_epi32) (num, V_ (mullo_epi32) (q, two_d));
      q = V_ (sub_epi32) (q, V_GT (r, V_ (set1_epi32) (w->two_d - 1)));
      q = V_ (add_epi32) (q, V_GT (V_ZERO, r));
    }
  } else {
    q = V_ (sra_epi32) (V_ (add_epi32) (s, V_ (set1_epi32) (w->half)),
        _mm_cvtsi32_si128 (w->shift));
  }
  q = V_ (add_epi32) (q, V_ (set1_epi32) (w->offset));
  q = V_ (max_epi32) (q, V_ZERO);
  return V_ (min_epi32) (q, V_ (set1_epi32) (w->maxval));
}

/* Output words i .. i + V_LANES - 1 of a row: two taps an instruction,
 * their lifted samples interleaved and multiplied by the pair of weights
 * (pmaddwd), in the 128-bit lanes' order that the pack below undoes */
WORDS_TARGET static ALWAYS_INLINE VEC
WORDS_NAME (taps) (const int16_t * const *src, size_t i,
    const KConvWordTaps * w, int n_taps)
{
  VEC lo = V_ZERO, hi = V_ZERO;
  for (int t = 0; t < n_taps; t += 2) {
    const VEC x0 = V_LOAD (src[t] + i), x1 = V_LOAD (src[t + 1] + i);
    const VEC k = V_ (set1_epi32) (w->tap_pair[t / 2]);
    lo = V_ (add_epi32) (lo, V_ (madd_epi16) (V_ (unpacklo_epi16) (x0, x1), k));
    hi = V_ (add_epi32) (hi, V_ (madd_epi16) (V_ (unpackhi_epi16) (x0, x1), k));
  }
  return V_ (packus_epi32) (WORDS_NAME (finish) (lo, w),
      WORDS_NAME (finish) (hi, w));
}

/* Inexact kernels: the clamped sum plus bias, floored, in 32-bit lanes */
WORDS_TARGET static inline VEC
WORDS_NAME (float_finish) (VECF acc, const KConvWordTaps * w)
{
  if (w->absolute)
    acc = V_ABS_PS (acc);
  acc = V_ (add_ps) (acc, V_ (set1_ps) (w->bias));
  acc = V_ (min_ps) (V_ (max_ps) (acc, V_ (setzero_ps) ()),
      V_ (set1_ps) ((float) w->maxval));
  return V_ (cvttps_epi32) (acc);
}

/* Output words i .. i + V_LANES - 1 of an inexact kernel: two vectors of
 * floats, each summed in two chains (even and odd taps) so that four
 * multiply-adds are in flight */
WORDS_TARGET static ALWAYS_INLINE VEC
WORDS_NAME (float_taps) (const float *const *src, size_t i,
    const KConvWordTaps * w, int n_taps)
{
  const size_t j = i + V_LANES / 2;
  VECF a0 = V_ (setzero_ps) (), a1 = a0, b0 = a0, b1 = a0;
  int t = 0;
  for (; t + 1 < n_taps; t += 2) {
    const VECF k0 = V_ (set1_ps) (w->tap_f[t]);
    const VECF k1 = V_ (set1_ps) (w->tap_f[t + 1]);
    a0 = V_ (fmadd_ps) (k0, V_ (loadu_ps) (src[t] + i), a0);
    b0 = V_ (fmadd_ps) (k0, V_ (loadu_ps) (src[t] + j), b0);
    a1 = V_ (fmadd_ps) (k1, V_ (loadu_ps) (src[t + 1] + i), a1);
    b1 = V_ (fmadd_ps) (k1, V_ (loadu_ps) (src[t + 1] + j), b1);
  }
  if (t < n_taps) {
    const VECF k0 = V_ (set1_ps) (w->tap_f[t]);
    a0 = V_ (fmadd_ps) (k0, V_ (loadu_ps) (src[t] + i), a0);
    b0 = V_ (fmadd_ps) (k0, V_ (loadu_ps) (src[t] + j), b0);
  }
  return V_ORDER (V_ (packus_epi32) (WORDS_NAME (float_finish) (V_ (add_ps)
              (a0, a1), w), WORDS_NAME (float_finish) (V_ (add_ps) (b0, b1),
              w)));
}

/* One output row of n words from the taps' sources: shifted up to the
 * format's bits, in its byte order, word `keep` of each 4-word pixel (if
 * >= 0) copied from srow; stored past the caches where `stream` says so.
 * Built for a count of taps, where one is given, so that the weights and
 * sources stay in registers. */
WORDS_TARGET static ALWAYS_INLINE VEC
WORDS_NAME (out_words) (const void *const *src, size_t i,
    const KConvWordTaps * w, __m128i up, int big_endian, int n_taps,
    int inexact)
{
  VEC v = inexact ?
      WORDS_NAME (float_taps) ((const float *const *) src, i, w, n_taps) :
      WORDS_NAME (taps) ((const int16_t * const *) src, i, w, n_taps);
  v = V_ (sll_epi16) (v, up);
  if (big_endian)
    v = V_OR (V_ (slli_epi16) (v, 8), V_ (srli_epi16) (v, 8));
  return v;
}

WORDS_TARGET static ALWAYS_INLINE void
WORDS_NAME (row_of) (uint8_t * drow, const uint8_t * srow,
    const void *const *src, size_t n, const KConvWordTaps * w,
    int shift, int big_endian, int keep, int stream, int n_taps, int inexact)
{
  const __m128i up = _mm_cvtsi32_si128 (shift);
  /* (a row that starts on a cache line: every full vector's store does) */
  stream &= ((uintptr_t) drow & 63) == 0;
  /* whole vectors, then the rest apart: a partial vector goes through
   * memory, which would keep the whole loop's vector there */
  const size_t whole = n / V_LANES * V_LANES;
  size_t i = 0;
  for (; i < whole; i += V_LANES) {
    VEC v = WORDS_NAME (out_words) (src, i, w, up, big_endian, n_taps,
        inexact);
    if (keep >= 0)
      v = V_KEEP (v, V_LOAD (srow + 2 * i), keep);
    if (stream)
      V_STREAM (drow + 2 * i, v);
    else
      V_STORE (drow + 2 * i, v);
  }
  if (i < n) {
    const size_t rest = n - i;
    VEC v = WORDS_NAME (out_words) (src, i, w, up, big_endian, n_taps,
        inexact), s = V_ZERO;
    if (keep >= 0) {
      memcpy (&s, srow + 2 * i, 2 * rest);
      v = V_KEEP (v, s, keep);
    }
    memcpy (drow + 2 * i, &v, 2 * rest);
  }
}

/* A separable kernel's column sums over rows of plain values: out[i] =
 * sum of v_f[r] * rows[r][i], for i < n rounded up to V_LANES (the rows
 * are readable that far) */
WORDS_TARGET static void
WORDS_NAME (column_sums) (float *restrict out, const uint16_t * const *rows,
    const KConvWordTaps * w, size_t n)
{
  for (size_t i = 0; i < n; i += V_LANES) {
    const size_t j = i + V_LANES / 2;
    VECF a = V_ (setzero_ps) (), b = a;
    for (int r = 0; r < w->n_v; r++) {
      const VECF k = V_ (set1_ps) (w->v_f[r]);
      a = V_ (fmadd_ps) (k, V_WIDEN_PS (rows[r] + i), a);
      b = V_ (fmadd_ps) (k, V_WIDEN_PS (rows[r] + j), b);
    }
    V_ (storeu_ps) (out + i, a);
    V_ (storeu_ps) (out + j, b);
  }
}

/* As column_sums, straight from the source rows (little-endian words whose
 * values are (word >> shift) & mask), for the n words of a row; the rest
 * after the last whole vector one at a time, in the same order of
 * multiply-adds.  The separable path then keeps no ring of rows. */
WORDS_TARGET static void
WORDS_NAME (column_sums_direct) (float *restrict out,
    const uint8_t * const *rows, const KConvWordTaps * w, size_t n,
    int shift, uint16_t mask, const uint8_t * next)
{
  const __m128i down = _mm_cvtsi32_si128 (shift);
  const VEC m = V_ (set1_epi16) ((short) mask);
  size_t i = 0;
  for (; i + V_LANES <= n; i += V_LANES) {
    VECF a = V_ (setzero_ps) (), b = a;
    for (int r = 0; r < w->n_v; r++) {
      const VECF k = V_ (set1_ps) (w->v_f[r]);
      const VEC v = V_AND (V_ (srl_epi16) (V_LOAD (rows[r] + 2 * i), down),
          m);
      a = V_ (fmadd_ps) (k, V_WIDEN_LO_PS (v), a);
      b = V_ (fmadd_ps) (k, V_WIDEN_HI_PS (v), b);
    }
    V_ (storeu_ps) (out + i, a);
    V_ (storeu_ps) (out + i + V_LANES / 2, b);
    _mm_prefetch ((const char *) next + 2 * i, _MM_HINT_T0);
  }
  for (; i < n; i++) {
    float a = 0.f;
    for (int r = 0; r < w->n_v; r++) {
      uint16_t v;
      memcpy (&v, rows[r] + 2 * i, sizeof v);
      a = fmaf (w->v_f[r], (float) ((v >> shift) & mask), a);
    }
    out[i] = a;
  }
}

/* 3x3: 9 taps in floats, or 10 (a zero one among them) in pairs; a
 * separable kernel's 3 taps across */
WORDS_TARGET static void
WORDS_NAME (row) (uint8_t * drow, const uint8_t * srow,
    const void *const *src, size_t n, const KConvWordTaps * w,
    int shift, int big_endian, int keep, int stream)
{
  if (w->inexact && w->n_taps == 3)
    WORDS_NAME (row_of) (drow, srow, src, n, w, shift, big_endian, keep,
        stream, 3, 1);
  else if (w->inexact && w->n_taps == 9)
    WORDS_NAME (row_of) (drow, srow, src, n, w, shift, big_endian, keep,
        stream, 9, 1);
  else if (!w->inexact && w->n_taps == 10)
    WORDS_NAME (row_of) (drow, srow, src, n, w, shift, big_endian, keep,
        stream, 10, 0);
  else
    WORDS_NAME (row_of) (drow, srow, src, n, w, shift, big_endian, keep,
        stream, w->n_taps, w->inexact);
}

/* Words i0 .. i1 - 1 of a source row to their values ((word >> shift) &
 * mask), in the ring's form: lifted by -2^15 for exact kernels (signed
 * 16-bit lanes for pmaddwd), floats for inexact ones in one pass, plain
 * for the column sums of separable ones */
WORDS_TARGET static void
WORDS_NAME (values_span) (void *restrict out, const uint8_t * in, size_t i0,
    size_t i1, int shift, uint16_t mask, int big_endian, KConvWordForm form)
{
  typedef uint16_t word __attribute__((aligned (1), may_alias));
  const word *w = (const word *) in;
  uint16_t *restrict u = out;
  float *restrict f = out;
  const uint16_t lift = form == WORDS_LIFTED ? 0x8000 : 0;
  if (form == WORDS_FLOATS && big_endian) {
    for (size_t i = i0; i < i1; i++)
      f[i] = (float) ((__builtin_bswap16 (w[i]) >> shift) & mask);
  } else if (form == WORDS_FLOATS) {
    for (size_t i = i0; i < i1; i++)
      f[i] = (float) ((w[i] >> shift) & mask);
  } else if (big_endian) {
    for (size_t i = i0; i < i1; i++)
      u[i] = ((__builtin_bswap16 (w[i]) >> shift) & mask) ^ lift;
  } else {
    for (size_t i = i0; i < i1; i++)
      u[i] = ((w[i] >> shift) & mask) ^ lift;
  }
}

/* n words of a source row to their values, as values_span, while the row
 * read after it (next, when not NULL) is fetched into the cache */
WORDS_TARGET static void
WORDS_NAME (values) (void *restrict out, const uint8_t * in, size_t n,
    int shift, uint16_t mask, int big_endian, KConvWordForm form,
    const uint8_t * next)
{
  for (size_t c = 0; c < n; c += 256) {
    const size_t e = c + 256 < n ? c + 256 : n;
    for (size_t b = 2 * c; next && b < 2 * e; b += 64)
      _mm_prefetch ((const char *) next + b, _MM_HINT_T0);
    WORDS_NAME (values_span) (out, in, c, e, shift, mask, big_endian, form);
  }
}
