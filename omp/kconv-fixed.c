/* kconv: the CPU's 16-bit paths
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two kinds of kernel need no floats; 16-bit lanes then hold 16 samples a
 * register where floats fit 8, and the rows a band keeps are half or a
 * quarter the size (they stay in the first-level cache).
 *
 * Small exact kernels (edge, sobel, laplacian, sharpen, emboss, box and
 * binomial blurs, most hand-written 3x3 to 7x7 matrices, rank-1 ones up to
 * 33x33 in two passes): when 255 * sum |w| < 2^15 every partial sum of
 * p * w fits a signed 16-bit lane, so the sum is exact, and so is the
 * division (a shift, or a multiplication by a magic number checked for
 * every sum the kernel can make): the same bits as every other path.
 *
 * Blurs: a separable inexact kernel whose taps are all >= 0 and whose
 * factors each sum to at most 1 (gaussians, most blurs).  A sample enters
 * as p * 256 in an unsigned 16-bit lane, a weight as 16 fractional bits,
 * and a tap is the high half of their product (pmulhuw): a sum with 8
 * fractional bits that cannot overflow, and no widening to 32 bits.  OpenCV
 * blurs 8-bit images the same way.
 *
 * Error: a weight is off by at most 2^-17 and a product is cut short by less
 * than 1/256; half a unit per tap is added back, so the sum is within
 * (n_h + n_v + 1) / 256 of the real one (0.027 for 3x3, 0.12 for 15x15,
 * 0.26 for 33x33).
 * Every output is within 1 of the exact result, as inexact kernels promise,
 * and equal to it unless the real value lies that close to a rounding edge.
 *
 * Samples are unpacked per 128-bit lane (bytes 0-7 and 16-23, then 8-15
 * and 24-31) and packed back the same way, so no step crosses lanes: a
 * chunk of 32 bytes comes out in the order it went in.
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-cpu.h"
#include "kconv-error.h"
#include "kconv-lanes.h"
#include "kconv-team.h"

/* The two-pass tap loops run to min (taps, cap): each pass is built twice,
 * with cap SHORT_TAPS, where GCC unrolls the loop whole (short kernels, the
 * common ones, ran 1.1-1.5x faster so), and with cap FIXED_MAX_TAPS,
 * unrolled 16 deep (1080p RGBA gaussian 31x31: 4.1-4.5 ms against
 * 4.7-4.9 as a plain loop). */
#define SHORT_TAPS 15
#define ALWAYS_INLINE inline __attribute__ ((always_inline))
/* Blur taps per direction: the error above grows with them. */
#define FIXED_MAX_TAPS 33
/* Exact kernels in one pass up to 7x7 (49 taps; few larger ones keep
 * within the sum bound) */
#define INT_MAX_SIDE 7
#define INT_SUM_LIMIT 32767
/* The sum of a factor's weights may exceed 1 by float rounding only. */
#define FIXED_SUM_SLACK 1e-5
#define CHUNK KCONV_CHUNK

struct KConvCpuFixed
{
  const KConvPlan *plan;
  KConvCpuFixedKind kind;
  /* two passes: the column factor's non-zero taps (v_row, and v_int for
   * exact kernels, whose row factor is in tap_*); blurs' row factor */
  int n_h, n_v;
  int v_row[FIXED_MAX_TAPS];
  int16_t v_int[FIXED_MAX_TAPS];
  int h_offset[FIXED_MAX_TAPS]; /* in pixels, the non-zero taps only */
  uint16_t h[FIXED_MAX_TAPS], v[FIXED_MAX_TAPS];        /* 16 fractional bits */
  uint16_t bias_add, bias_sub;  /* offset + 0.5 and the truncation back,
                                 * 8 fractional bits, one of them 0 */
  /* exact kernels: the non-zero taps */
  int n_taps;
  int tap_row[INT_MAX_SIDE * INT_MAX_SIDE + 1];
  int tap_col[INT_MAX_SIDE * INT_MAX_SIDE + 1];
  int16_t tap_w[INT_MAX_SIDE * INT_MAX_SIDE + 1];
  /* w[2i + 1]:w[2i] */
  int16_t tap_pair[(INT_MAX_SIDE * INT_MAX_SIDE + 1) / 2];
  int negate, absolute;
  int16_t half, offset;
  int shift;                    /* d = 2^shift */
  int divide;                   /* d is not a power of 2: by magic */
  KConvMagic magic;
  int lift;                     /* (t + lift * d) is >= 0 for every t */
  uint16_t lift_add;            /* d / 2 + lift * d */
};

/* Quantises one factor, scaled by `scale`; 0 if a weight is negative, reaches
 * 1 or the factor sums to more than 1. */
static int
quantise (const float *f, int n, double scale, uint16_t * q, int *where,
    int *n_taps)
{
  double sum = 0.0;
  *n_taps = 0;
  for (int i = 0; i < n; i++) {
    double w = f[i] * scale;
    if (w < 0.0)
      return 0;
    sum += w;
    long fixed = lround (w * 65536.0);
    if (fixed > 65535)
      return 0;
    if (fixed > 0) {
      q[*n_taps] = (uint16_t) fixed;
      where[(*n_taps)++] = i;
    }
  }
  return sum <= 1.0 + FIXED_SUM_SLACK;
}

/* Exact taps (weights[r * cols + c] for r < rows, c < cols), as pairs of
 * signed bytes; 0 if a weight does not fit one. */
static int
int_taps_from (const float *weights, int rows, int cols, KConvCpuFixed * w)
{
  w->n_taps = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      const float v = weights[r * cols + c];
      if (v == 0.f)
        continue;
      if (fabsf (v) > 127.f)    /* a signed byte each */
        return 0;
      w->tap_row[w->n_taps] = r;
      w->tap_col[w->n_taps] = c;
      w->tap_w[w->n_taps++] = (int16_t) v;
    }
  if (w->n_taps % 2) {          /* an odd one out pairs with a zero tap */
    w->tap_row[w->n_taps] = w->tap_row[0];
    w->tap_col[w->n_taps] = w->tap_col[0];
    w->tap_w[w->n_taps++] = 0;
  }
  for (int t = 0; t < w->n_taps; t += 2)
    w->tap_pair[t / 2] = (int16_t) (((uint16_t) (uint8_t) w->tap_w[t + 1] << 8)
        | (uint8_t) w->tap_w[t]);
  return 1;
}

/* The exact rule's division, sign and offset for sums within
 * +-255 * sum_abs; 0 if 16 bits cannot hold them. */
static int
int_finish_from (const KConvPlan * plan, double sum_abs, KConvCpuFixed * w)
{
  /* round half up of s / d is floor ((s + floor (d / 2)) / d), d odd too;
   * t = s + d / 2 lies in [-top, top] */
  const int d = plan->divisor;
  const double top = 255.0 * sum_abs + d / 2;
  if (top > INT_SUM_LIMIT)
    return 0;
  w->half = (int16_t) (d / 2);
  w->shift = 0;
  w->lift = 0;
  w->divide = 0;
  if ((d & (d - 1)) == 0) {     /* 2^k: an arithmetic shift */
    w->shift = __builtin_ctz ((unsigned) d);
  } else {
    /* others: t + lift * d >= 0, divided as unsigned by a magic number */
    const double low = 255.0 * sum_abs - d / 2; /* t >= -low */
    w->lift = low > 0 ? (int) ceil (low / d) : 0;
    const double u_max = top + (double) w->lift * d;
    if (u_max > 65535.0 || !kconv_magic_find (d, (int) u_max, &w->magic))
      return 0;
    w->lift_add = (uint16_t) (d / 2 + w->lift * d);
    w->divide = 1;
  }
  w->negate = plan->negate;
  w->absolute = plan->absolute;
  /* added with saturation: anything past +-32767 clamps to 0 or 255 alike */
  w->offset = (int16_t) (plan->ioffset > 32767 ? 32767 :
      plan->ioffset < -32767 ? -32767 : plan->ioffset);
  return 1;
}

static double
sum_abs_of (const float *f, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += fabsf (f[i]);
  return s;
}

/* Exact kernels in one 2D pass */
static int
int_weights (const KConvPlan * plan, KConvCpuFixed * w)
{
  if (!plan->exact || plan->rows > INT_MAX_SIDE || plan->cols > INT_MAX_SIDE
      || !int_taps_from (plan->weights, plan->rows, plan->cols, w)
      || !int_finish_from (plan, sum_abs_of (plan->weights,
              plan->rows * plan->cols), w))
    return 0;
  w->kind = KCONV_CPU_FIXED_INT;
  return 1;
}

/* Exact rank-1 kernels from 3x3 on (two passes pay there already: 1080p
 * RGBA sobel-x 0.8 ms against 1.4 in one 2D pass, box 3x3 1.05 against
 * 1.35): a row factor of signed bytes, a column factor of 16-bit integers;
 * every partial sum is bounded by the whole. */
static int
int_separable_weights (const KConvPlan * plan, KConvCpuFixed * w)
{
  if (!plan->exact || !plan->separable || plan->rows > FIXED_MAX_TAPS
      || plan->cols > FIXED_MAX_TAPS
      || plan->rows * plan->cols < 9
      || !int_taps_from (plan->h, 1, plan->cols, w)
      || !int_finish_from (plan, sum_abs_of (plan->weights,
              plan->rows * plan->cols), w))
    return 0;
  w->n_v = 0;
  for (int r = 0; r < plan->rows; r++)
    if (plan->v[r] != 0.f) {
      if (fabsf (plan->v[r]) > 32767.f)
        return 0;
      w->v_row[w->n_v] = r;
      w->v_int[w->n_v++] = (int16_t) plan->v[r];
    }
  w->kind = KCONV_CPU_FIXED_INT_SEPARABLE;
  return 1;
}

static int
blur_weights (const KConvPlan * plan, KConvCpuFixed * w)
{
  if (!plan->separable || plan->exact || plan->cols > FIXED_MAX_TAPS
      || plan->rows > FIXED_MAX_TAPS || !isfinite (plan->bias))
    return 0;
  /* h normalised to sum 1; v carries the rest (the divisor among it) */
  double h_sum = 0.0;
  for (int i = 0; i < plan->cols; i++)
    h_sum += plan->h[i];
  if (!(h_sum > 0.0))
    return 0;
  if (!quantise (plan->h, plan->cols, 1.0 / h_sum, w->h, w->h_offset, &w->n_h)
      || !quantise (plan->v, plan->rows, h_sum, w->v, w->v_row, &w->n_v))
    return 0;
  double bias = plan->bias * 256.0 + 0.5 * (w->n_h + w->n_v);
  bias = bias > 65535.0 ? 65535.0 : bias < -65535.0 ? -65535.0 : bias;
  long b = lround (bias);
  w->bias_add = (uint16_t) (b > 0 ? b : 0);
  w->bias_sub = (uint16_t) (b < 0 ? -b : 0);
  w->kind = KCONV_CPU_FIXED_BLUR;
  return 1;
}

static KConvCpuFixedKind
fixed_weights (const KConvPlan * plan, KConvCpuFixed * w)
{
  w->kind = KCONV_CPU_FIXED_NONE;
  if (!int_separable_weights (plan, w) && !int_weights (plan, w))
    blur_weights (plan, w);
  return w->kind;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define FIXED_AVX2 __attribute__ ((target ("avx2")))


/* One source row, border included, to 16-bit horizontal sums for `chunks`
 * chunks (each a lo and a hi half in lane order, see top). */
FIXED_AVX2 static ALWAYS_INLINE void
horizontal_capped (uint16_t * restrict out, const uint8_t * restrict padded,
    size_t from, size_t chunks, int nc, const KConvCpuFixed * w, int cap)
{
  const __m256i zero = _mm256_setzero_si256 ();
  for (size_t c = from; c < chunks; c++) {
    __m256i lo = zero, hi = zero;
    const int n_taps = w->n_h < cap ? w->n_h : cap;
#pragma GCC unroll 16
    for (int t = 0; t < n_taps; t++) {
      const uint8_t *p = padded + c * CHUNK + (size_t) w->h_offset[t] * nc;
      const __m256i x = _mm256_loadu_si256 ((const __m256i *) p);
      const __m256i k = _mm256_set1_epi16 ((short) w->h[t]);
      lo = _mm256_add_epi16 (lo,
          _mm256_mulhi_epu16 (_mm256_unpacklo_epi8 (zero, x), k));
      hi = _mm256_add_epi16 (hi,
          _mm256_mulhi_epu16 (_mm256_unpackhi_epi8 (zero, x), k));
    }
    _mm256_store_si256 ((__m256i *) (out + c * CHUNK), lo);
    _mm256_store_si256 ((__m256i *) (out + c * CHUNK + 16), hi);
  }
}

FIXED_AVX2 static void
horizontal (uint16_t * restrict out, const uint8_t * restrict padded,
    size_t from, size_t chunks, int nc, const KConvCpuFixed * w)
{
  if (w->n_h <= SHORT_TAPS)
    horizontal_capped (out, padded, from, chunks, nc, w, SHORT_TAPS);
  else
    horizontal_capped (out, padded, from, chunks, nc, w, FIXED_MAX_TAPS);
}

/* Vertical taps over the ring rows, rounded to bytes: chunk c of an output
 * row. */
FIXED_AVX2 static ALWAYS_INLINE __m256i
vertical_chunk (const uint16_t * const *rows, size_t c,
    const KConvCpuFixed * w, int cap)
{
  __m256i lo = _mm256_setzero_si256 (), hi = lo;
  const int n_taps = w->n_v < cap ? w->n_v : cap;
#pragma GCC unroll 16
  for (int t = 0; t < n_taps; t++) {
    const uint16_t *r = rows[t] + c * CHUNK;
    const __m256i k = _mm256_set1_epi16 ((short) w->v[t]);
    lo = _mm256_add_epi16 (lo,
        _mm256_mulhi_epu16 (_mm256_load_si256 ((const __m256i *) r), k));
    hi = _mm256_add_epi16 (hi,
        _mm256_mulhi_epu16 (_mm256_load_si256 ((const __m256i *) (r + 16)), k));
  }
  const __m256i add = _mm256_set1_epi16 ((short) w->bias_add);
  const __m256i sub = _mm256_set1_epi16 ((short) w->bias_sub);
  lo = _mm256_srli_epi16 (_mm256_subs_epu16 (_mm256_adds_epu16 (lo, add),
          sub), 8);
  hi = _mm256_srli_epi16 (_mm256_subs_epu16 (_mm256_adds_epu16 (hi, add),
          sub), 8);
  return _mm256_packus_epi16 (lo, hi);
}

/* A blurred output row from the ring's horizontal sums (from chunk
 * `from` on). */
FIXED_AVX2 static ALWAYS_INLINE void
vertical_capped (uint8_t * restrict drow, const uint8_t * srow,
    const uint16_t * const *rows, size_t from, size_t n_bytes, uint32_t keep,
    const KConvCpuFixed * w, int cap)
{
  for (size_t c = from; c * CHUNK < n_bytes; c++)
    kconv_put_chunk (drow, srow, c, n_bytes - c * CHUNK < CHUNK ?
        n_bytes - c * CHUNK : CHUNK, vertical_chunk (rows, c, w, cap), keep);
}

FIXED_AVX2 static void
vertical (uint8_t * restrict drow, const uint8_t * srow,
    const uint16_t * const *rows, size_t from, size_t n_bytes, uint32_t keep,
    const KConvCpuFixed * w)
{
  if (w->n_v <= SHORT_TAPS)
    vertical_capped (drow, srow, rows, from, n_bytes, keep, w, SHORT_TAPS);
  else
    vertical_capped (drow, srow, rows, from, n_bytes, keep, w, FIXED_MAX_TAPS);
}

/* The blur's two passes with AVX-512, 64 bytes (two chunks) a step, for
 * the first `groups` 64 bytes of a row: the ring then holds a group's 32
 * low and 32 high sums, in the lane order of 512-bit unpacks, and the
 * 256-bit passes take the chunks after the groups. */
#define FIXED_AVX512 __attribute__ ((target ("avx512f,avx512bw")))

FIXED_AVX512 static ALWAYS_INLINE void
horizontal512_capped (uint16_t * restrict out, const uint8_t * restrict padded,
    size_t groups, int nc, const KConvCpuFixed * w, int cap)
{
  const __m512i zero = _mm512_setzero_si512 ();
  for (size_t g = 0; g < groups; g++) {
    __m512i lo = zero, hi = zero;
    const int n_taps = w->n_h < cap ? w->n_h : cap;
#pragma GCC unroll 16
    for (int t = 0; t < n_taps; t++) {
      const __m512i x = _mm512_loadu_si512 (padded + g * 64 +
          (size_t) w->h_offset[t] * nc);
      const __m512i k = _mm512_set1_epi16 ((short) w->h[t]);
      lo = _mm512_add_epi16 (lo,
          _mm512_mulhi_epu16 (_mm512_unpacklo_epi8 (zero, x), k));
      hi = _mm512_add_epi16 (hi,
          _mm512_mulhi_epu16 (_mm512_unpackhi_epi8 (zero, x), k));
    }
    _mm512_storeu_si512 (out + g * 64, lo);
    _mm512_storeu_si512 (out + g * 64 + 32, hi);
  }
}

FIXED_AVX512 static void
horizontal512 (uint16_t * restrict out, const uint8_t * restrict padded,
    size_t groups, int nc, const KConvCpuFixed * w)
{
  if (w->n_h <= SHORT_TAPS)
    horizontal512_capped (out, padded, groups, nc, w, SHORT_TAPS);
  else
    horizontal512_capped (out, padded, groups, nc, w, FIXED_MAX_TAPS);
}

FIXED_AVX512 static ALWAYS_INLINE void
vertical512_capped (uint8_t * restrict drow, const uint8_t * srow,
    const uint16_t * const *rows, size_t groups, uint64_t keep,
    const KConvCpuFixed * w, int cap)
{
  const __m512i add = _mm512_set1_epi16 ((short) w->bias_add);
  const __m512i sub = _mm512_set1_epi16 ((short) w->bias_sub);
  for (size_t g = 0; g < groups; g++) {
    __m512i lo = _mm512_setzero_si512 (), hi = lo;
    const int n_taps = w->n_v < cap ? w->n_v : cap;
#pragma GCC unroll 16
    for (int t = 0; t < n_taps; t++) {
      const uint16_t *r = rows[t] + g * 64;
      const __m512i k = _mm512_set1_epi16 ((short) w->v[t]);
      lo = _mm512_add_epi16 (lo, _mm512_mulhi_epu16 (_mm512_loadu_si512 (r),
              k));
      hi = _mm512_add_epi16 (hi,
          _mm512_mulhi_epu16 (_mm512_loadu_si512 (r + 32), k));
    }
    lo = _mm512_srli_epi16 (_mm512_subs_epu16 (_mm512_adds_epu16 (lo, add),
            sub), 8);
    hi = _mm512_srli_epi16 (_mm512_subs_epu16 (_mm512_adds_epu16 (hi, add),
            sub), 8);
    __m512i v = _mm512_packus_epi16 (lo, hi);
    if (keep)
      v = _mm512_mask_blend_epi8 (keep, _mm512_loadu_si512 (srow + g * 64), v);
    _mm512_storeu_si512 (drow + g * 64, v);
  }
}

FIXED_AVX512 static void
vertical512 (uint8_t * restrict drow, const uint8_t * srow,
    const uint16_t * const *rows, size_t groups, uint64_t keep,
    const KConvCpuFixed * w)
{
  if (w->n_v <= SHORT_TAPS)
    vertical512_capped (drow, srow, rows, groups, keep, w, SHORT_TAPS);
  else
    vertical512_capped (drow, srow, rows, groups, keep, w, FIXED_MAX_TAPS);
}

/* Exact taps over padded source rows (rows[r] for kernel row r) for chunk
 * c, two taps an instruction: their samples interleaved, bytes times signed
 * bytes summed in pairs (pmaddubsw; no pair can saturate, as 255 * sum |w|
 * < 2^15). */
FIXED_AVX2 static inline void
int_taps (const uint8_t * const *rows, size_t c, int nc,
    const KConvCpuFixed * w, __m256i * lo, __m256i * hi)
{
  for (int t = 0; t < w->n_taps; t += 2) {
    const uint8_t *p0 = rows[w->tap_row[t]] + c * CHUNK +
        (size_t) w->tap_col[t] * nc;
    const uint8_t *p1 = rows[w->tap_row[t + 1]] + c * CHUNK +
        (size_t) w->tap_col[t + 1] * nc;
    const __m256i x0 = _mm256_loadu_si256 ((const __m256i *) p0);
    const __m256i x1 = _mm256_loadu_si256 ((const __m256i *) p1);
    const __m256i k = _mm256_set1_epi16 (w->tap_pair[t / 2]);
    *lo = _mm256_add_epi16 (*lo,
        _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (x0, x1), k));
    *hi = _mm256_add_epi16 (*hi,
        _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (x0, x1), k));
  }
}

/* Exact sums to bytes, by the rule in kconv.h */
FIXED_AVX2 static inline __m256i
int_finish (__m256i lo, __m256i hi, const KConvCpuFixed * w)
{
  const __m256i zero = _mm256_setzero_si256 ();
  if (w->negate) {
    lo = _mm256_sub_epi16 (zero, lo);
    hi = _mm256_sub_epi16 (zero, hi);
  }
  if (w->absolute) {
    lo = _mm256_abs_epi16 (lo);
    hi = _mm256_abs_epi16 (hi);
  }
  if (w->divide) {
    /* u = t + lift * d as unsigned 16 bits; floor (u / d) - lift */
    const __m256i add = _mm256_set1_epi16 ((short) w->lift_add);
    const __m256i lift = _mm256_set1_epi16 ((short) w->lift);
    lo = _mm256_sub_epi16 (kconv_magic_divide (_mm256_add_epi16 (lo, add),
            &w->magic), lift);
    hi = _mm256_sub_epi16 (kconv_magic_divide (_mm256_add_epi16 (hi, add),
            &w->magic), lift);
  } else if (w->shift) {
    const __m256i half = _mm256_set1_epi16 (w->half);
    const __m128i k = _mm_cvtsi32_si128 (w->shift);
    lo = _mm256_sra_epi16 (_mm256_add_epi16 (lo, half), k);
    hi = _mm256_sra_epi16 (_mm256_add_epi16 (hi, half), k);
  }
  const __m256i off = _mm256_set1_epi16 (w->offset);
  return _mm256_packus_epi16 (_mm256_adds_epi16 (lo, off),
      _mm256_adds_epi16 (hi, off));
}

/* int_taps and int_finish with AVX-512: 64 bytes a step, the taps' sources
 * found once a row.  Returns the bytes it did, a multiple of 2 * CHUNK; the
 * rest is int_row's. */
FIXED_AVX512 static inline __m512i
int_finish512 (__m512i v, const KConvCpuFixed * w)
{
  if (w->negate)
    v = _mm512_sub_epi16 (_mm512_setzero_si512 (), v);
  if (w->absolute)
    v = _mm512_abs_epi16 (v);
  if (w->divide)
    v = _mm512_sub_epi16 (kconv_magic_divide512 (_mm512_add_epi16 (v,
                _mm512_set1_epi16 ((short) w->lift_add)), &w->magic),
        _mm512_set1_epi16 ((short) w->lift));
  else if (w->shift)
    v = _mm512_sra_epi16 (_mm512_add_epi16 (v, _mm512_set1_epi16 (w->half)),
        _mm_cvtsi32_si128 (w->shift));
  return _mm512_adds_epi16 (v, _mm512_set1_epi16 (w->offset));
}

/* Where each tap of an exact kernel reads, its kernel row's padded source
 * row shifted by its column */
static void
tap_sources (const uint8_t ** src, const uint8_t * const *rows, int nc,
    const KConvCpuFixed * w)
{
  for (int t = 0; t < w->n_taps; t++)
    src[t] = rows[w->tap_row[t]] + (size_t) w->tap_col[t] * nc;
}

/* int_taps, 64 bytes from byte i of each tap's source */
FIXED_AVX512 static inline void
int_taps512 (const uint8_t * const *src, size_t i, const KConvCpuFixed * w,
    __m512i * lo, __m512i * hi)
{
  *lo = _mm512_setzero_si512 ();
  *hi = *lo;
  for (int t = 0; t < w->n_taps; t += 2) {
    const __m512i x0 = _mm512_loadu_si512 (src[t] + i);
    const __m512i x1 = _mm512_loadu_si512 (src[t + 1] + i);
    const __m512i k = _mm512_set1_epi16 (w->tap_pair[t / 2]);
    *lo = _mm512_add_epi16 (*lo,
        _mm512_maddubs_epi16 (_mm512_unpacklo_epi8 (x0, x1), k));
    *hi = _mm512_add_epi16 (*hi,
        _mm512_maddubs_epi16 (_mm512_unpackhi_epi8 (x0, x1), k));
  }
}

FIXED_AVX512 static size_t
int_row_avx512 (uint8_t * restrict drow, const uint8_t * srow,
    const uint8_t * const *rows, size_t n_bytes, int nc, uint64_t keep,
    const KConvCpuFixed * w)
{
  const uint8_t *src[INT_MAX_SIDE * INT_MAX_SIDE + 1];
  tap_sources (src, rows, nc, w);
  size_t i = 0;
  for (; i + 64 <= n_bytes; i += 64) {
    __m512i lo, hi;
    int_taps512 (src, i, w, &lo, &hi);
    __m512i v = _mm512_packus_epi16 (int_finish512 (lo, w),
        int_finish512 (hi, w));
    if (keep)
      v = _mm512_mask_blend_epi8 (keep, _mm512_loadu_si512 (srow + i), v);
    _mm512_storeu_si512 (drow + i, v);
  }
  return i;
}

/* An exact kernel's output row from the ring's padded source rows. */
FIXED_AVX2 static void
int_row (uint8_t * restrict drow, const uint8_t * srow,
    const uint8_t * const *rows, size_t n_bytes, int nc, uint32_t keep,
    const KConvCpuFixed * w, size_t from)
{
  for (size_t c = from / CHUNK; c * CHUNK < n_bytes; c++) {
    __m256i lo = _mm256_setzero_si256 (), hi = lo;
    int_taps (rows, c, nc, w, &lo, &hi);
    kconv_put_chunk (drow, srow, c, n_bytes - c * CHUNK < CHUNK ?
        n_bytes - c * CHUNK : CHUNK, int_finish (lo, hi, w), keep);
  }
}

/* A separable exact kernel: one padded source row to its exact horizontal
 * sums (the taps are the row factor's, all on row 0). */
FIXED_AVX2 static void
int_horizontal (int16_t * restrict out, const uint8_t * padded,
    size_t from, size_t chunks, int nc, const KConvCpuFixed * w)
{
  const uint8_t *rows[1] = { padded };
  for (size_t c = from; c < chunks; c++) {
    __m256i lo = _mm256_setzero_si256 (), hi = lo;
    int_taps (rows, c, nc, w, &lo, &hi);
    _mm256_store_si256 ((__m256i *) (out + c * CHUNK), lo);
    _mm256_store_si256 ((__m256i *) (out + c * CHUNK + 16), hi);
  }
}

/* ... and an output row from the ring's horizontal sums (exact products:
 * each is bounded by the whole sum). */
FIXED_AVX2 static ALWAYS_INLINE void
int_vertical_capped (uint8_t * restrict drow, const uint8_t * srow,
    const int16_t * const *rows, size_t from, size_t n_bytes, uint32_t keep,
    const KConvCpuFixed * w, int cap)
{
  for (size_t c = from; c * CHUNK < n_bytes; c++) {
    __m256i lo = _mm256_setzero_si256 (), hi = lo;
    const int n_taps = w->n_v < cap ? w->n_v : cap;
#pragma GCC unroll 16
    for (int t = 0; t < n_taps; t++) {
      const int16_t *r = rows[t] + c * CHUNK;
      const __m256i k = _mm256_set1_epi16 (w->v_int[t]);
      lo = _mm256_add_epi16 (lo, _mm256_mullo_epi16 (_mm256_load_si256
              ((const __m256i *) r), k));
      hi = _mm256_add_epi16 (hi, _mm256_mullo_epi16 (_mm256_load_si256
              ((const __m256i *) (r + 16)), k));
    }
    kconv_put_chunk (drow, srow, c, n_bytes - c * CHUNK < CHUNK ?
        n_bytes - c * CHUNK : CHUNK, int_finish (lo, hi, w), keep);
  }
}

FIXED_AVX2 static void
int_vertical (uint8_t * restrict drow, const uint8_t * srow,
    const int16_t * const *rows, size_t from, size_t n_bytes, uint32_t keep,
    const KConvCpuFixed * w)
{
  if (w->n_v <= SHORT_TAPS)
    int_vertical_capped (drow, srow, rows, from, n_bytes, keep, w, SHORT_TAPS);
  else
    int_vertical_capped (drow, srow, rows, from, n_bytes, keep, w,
        FIXED_MAX_TAPS);
}

/* The two passes of a separable exact kernel with AVX-512, over the first
 * `groups` 64 bytes of a row, in the ring layout of horizontal512 */
FIXED_AVX512 static void
int_horizontal512 (int16_t * restrict out, const uint8_t * padded,
    size_t groups, int nc, const KConvCpuFixed * w)
{
  const uint8_t *rows[1] = { padded };
  const uint8_t *src[INT_MAX_SIDE * INT_MAX_SIDE + 1];
  tap_sources (src, rows, nc, w);
  for (size_t g = 0; g < groups; g++) {
    __m512i lo, hi;
    int_taps512 (src, g * 64, w, &lo, &hi);
    _mm512_storeu_si512 (out + g * 64, lo);
    _mm512_storeu_si512 (out + g * 64 + 32, hi);
  }
}

FIXED_AVX512 static ALWAYS_INLINE void
int_vertical512_capped (uint8_t * restrict drow, const uint8_t * srow,
    const int16_t * const *rows, size_t groups, uint64_t keep,
    const KConvCpuFixed * w, int cap)
{
  for (size_t g = 0; g < groups; g++) {
    __m512i lo = _mm512_setzero_si512 (), hi = lo;
    const int n_taps = w->n_v < cap ? w->n_v : cap;
#pragma GCC unroll 16
    for (int t = 0; t < n_taps; t++) {
      const int16_t *r = rows[t] + g * 64;
      const __m512i k = _mm512_set1_epi16 (w->v_int[t]);
      lo = _mm512_add_epi16 (lo, _mm512_mullo_epi16 (_mm512_loadu_si512 (r),
              k));
      hi = _mm512_add_epi16 (hi,
          _mm512_mullo_epi16 (_mm512_loadu_si512 (r + 32), k));
    }
    __m512i v = _mm512_packus_epi16 (int_finish512 (lo, w),
        int_finish512 (hi, w));
    if (keep)
      v = _mm512_mask_blend_epi8 (keep, _mm512_loadu_si512 (srow + g * 64), v);
    _mm512_storeu_si512 (drow + g * 64, v);
  }
}

FIXED_AVX512 static void
int_vertical512 (uint8_t * restrict drow, const uint8_t * srow,
    const int16_t * const *rows, size_t groups, uint64_t keep,
    const KConvCpuFixed * w)
{
  if (w->n_v <= SHORT_TAPS)
    int_vertical512_capped (drow, srow, rows, groups, keep, w, SHORT_TAPS);
  else
    int_vertical512_capped (drow, srow, rows, groups, keep, w, FIXED_MAX_TAPS);
}
#endif

KConvCpuFixed *
kconv_cpu_fixed_new (const KConvPlan * plan)
{
  /* whole cache lines: the hot loops of every thread read it, and a line
   * shared with memory another thread writes would slow them all */
  const size_t size = (sizeof (KConvCpuFixed) + 63) / 64 * 64;
  KConvCpuFixed *w = aligned_alloc (64, size);
  if (!w)
    return NULL;
  memset (w, 0, size);
  w->plan = plan;
  if (kconv_cpu_isa () < KCONV_ISA_AVX2
      || fixed_weights (plan, w) == KCONV_CPU_FIXED_NONE) {
    free (w);
    return NULL;
  }
  return w;
}

KConvCpuFixedKind
kconv_cpu_fixed_kind (const KConvCpuFixed * fixed)
{
  return fixed ? fixed->kind : KCONV_CPU_FIXED_NONE;
}

void
kconv_cpu_fixed_free (KConvCpuFixed * fixed)
{
  free (fixed);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

typedef struct
{
  const KConvPlan *plan;
  const KConvImage *src, *dst;
  const KConvCpuFixed *w;
  int nc;
  uint32_t keep;
  size_t row_bytes;             /* width * nc */
  size_t chunks;                /* CHUNKs covering a row */
  int avx512;                   /* exact kernels: int_row_avx512 first */
  uint64_t keep_bits;           /* keep, a bit a byte over 64 bytes */
  size_t padded_bytes;          /* a source row with its border, and slack */
  int *xmap;
  uint8_t *scratch;
  size_t per_thread;            /* bytes */
} FixedJob;

static size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* Source row `logical_row` with the horizontal border around it. */
static void
pad_row (uint8_t * out, const FixedJob * job, int logical_row)
{
  const KConvImage *im = job->src;
  const int nc = job->nc, padded = im->width + job->plan->cols - 1;
  int sy = kconv_border_index (job->plan->border, logical_row, im->height);
  if (sy < 0) {
    memset (out, 0, (size_t) padded * nc);
    return;
  }
  const uint8_t *srow = im->data + (ptrdiff_t) sy * im->stride;
  memcpy (out + (size_t) job->plan->ax * nc, srow, job->row_bytes);
  for (int x = 0; x < padded; x++) {
    if (x == job->plan->ax)
      x += im->width;           /* the middle is done */
    if (x >= padded)
      break;
    for (int c = 0; c < nc; c++)
      out[(size_t) x * nc + c] = job->xmap[x] < 0 ? 0 :
          srow[(size_t) job->xmap[x] * nc + c];
  }
}

/* ring slot of logical row L: L mod rows, as in the float path */
static int
slot_of (int l, int rows)
{
  return ((l % rows) + rows) % rows;
}

/* Blurs and separable exact kernels: the ring holds the horizontal sums of
 * the last rows source rows. */
static void
run_band_two_pass (const FixedJob * job, uint8_t * mem, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const KConvCpuFixed *w = job->w;
  const int rows = plan->rows, exact = w->kind != KCONV_CPU_FIXED_BLUR;
  const size_t ring_len = job->chunks * CHUNK;  /* 16-bit per ring row */
  uint16_t *ring = (uint16_t *) mem;
  uint8_t *padded = mem + rows * ring_len * sizeof (uint16_t);
  const uint16_t *taps[FIXED_MAX_TAPS];
  /* 64-byte groups of the row that the AVX-512 passes take (none without
   * AVX-512: those functions must not even be entered then) */
  const size_t groups = job->avx512 ? job->row_bytes / 64 : 0;

  for (int y = y0; y < y1; y++) {
    int first = y - plan->ay;
    int start = y == y0 ? first : first + rows - 1;
    for (int l = start; l < first + rows; l++) {
      uint16_t *slot = ring + slot_of (l, rows) * ring_len;
      pad_row (padded, job, l);
      if (exact) {
        if (groups)
          int_horizontal512 ((int16_t *) slot, padded, groups, job->nc, w);
        int_horizontal ((int16_t *) slot, padded, 2 * groups, job->chunks,
            job->nc, w);
      } else {
        if (groups)
          horizontal512 (slot, padded, groups, job->nc, w);
        horizontal (slot, padded, 2 * groups, job->chunks, job->nc, w);
      }
    }
    for (int t = 0; t < w->n_v; t++)
      taps[t] = ring + slot_of (first + w->v_row[t], rows) * ring_len;
    uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride;
    const uint8_t *srow = job->src->data + (ptrdiff_t) y * job->src->stride;
    if (exact) {
      if (groups)
        int_vertical512 (drow, srow, (const int16_t * const *) taps, groups,
            job->keep_bits, w);
      int_vertical (drow, srow, (const int16_t * const *) taps, 2 * groups,
          job->row_bytes, job->keep, w);
    } else {
      if (groups)
        vertical512 (drow, srow, taps, groups, job->keep_bits, w);
      vertical (drow, srow, taps, 2 * groups, job->row_bytes, job->keep, w);
    }
  }
}

/* Exact kernels: the ring holds the last rows source rows, padded. */
static void
run_band_int (const FixedJob * job, uint8_t * mem, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const int rows = plan->rows;
  const uint8_t *by_row[INT_MAX_SIDE];

  for (int y = y0; y < y1; y++) {
    int first = y - plan->ay;
    int start = y == y0 ? first : first + rows - 1;
    for (int l = start; l < first + rows; l++)
      pad_row (mem + slot_of (l, rows) * job->padded_bytes, job, l);
    for (int r = 0; r < rows; r++)
      by_row[r] = mem + slot_of (first + r, rows) * job->padded_bytes;
    uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride;
    const uint8_t *srow = job->src->data + (ptrdiff_t) y * job->src->stride;
    size_t done = job->avx512 ? int_row_avx512 (drow, srow, by_row,
        job->row_bytes, job->nc, job->keep_bits, job->w) : 0;
    int_row (drow, srow, by_row, job->row_bytes, job->nc, job->keep, job->w,
        done);
  }
}

static void
run_bands (int t, int n, void *ctx)
{
  const FixedJob *job = ctx;
  int y0, y1;
  kconv_band (job->src->height, t, n, &y0, &y1);
  if (y0 >= y1)
    return;
  if (job->w->kind == KCONV_CPU_FIXED_INT)
    run_band_int (job, job->scratch + job->per_thread * t, y0, y1);
  else
    run_band_two_pass (job, job->scratch + job->per_thread * t, y0, y1);
}

KConvStatus
kconv_cpu_fixed_run (const KConvCpuFixed * fixed, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep)
{
  FixedJob job = { 0 };
  if (!fixed || src->n_channels != src->pixel_stride)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "the 16-bit path takes "
        "packed pixels only");
  const KConvPlan *plan = fixed->plan;
  job.w = fixed;
  job.plan = plan;
  job.src = src;
  job.dst = dst;
  job.nc = src->n_channels;
  job.keep = keep;
  job.row_bytes = (size_t) src->width * job.nc;
  job.avx512 = kconv_cpu_avx512 ();
  job.keep_bits = kconv_cpu_keep_bits (keep);
  job.chunks = round_up (job.row_bytes, CHUNK) / CHUNK;
  /* a chunk's last tap reads CHUNK bytes from its offset */
  job.padded_bytes = round_up (job.chunks * CHUNK +
      (size_t) (plan->cols - 1) * job.nc + CHUNK, 64);
  job.per_thread = job.w->kind == KCONV_CPU_FIXED_INT ?
      (size_t) plan->rows * job.padded_bytes :
      round_up ((size_t) plan->rows * job.chunks * CHUNK * sizeof (uint16_t) +
      job.padded_bytes, 64);
  return kconv_cpu_bands (plan, src, n_threads, scratch, job.per_thread,
      &job.scratch, &job.xmap, run_bands, &job);
}

#else

KConvStatus
kconv_cpu_fixed_run (const KConvCpuFixed * fixed, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep)
{
  return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the 16-bit path "
      "needs x86-64");
}

#endif
