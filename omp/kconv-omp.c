/* kconv: the CPU convolution (vectorised, on OpenMP teams)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each thread owns a band of output rows.  Source rows are widened to float
 * once, with the border already applied, into a ring as tall as the kernel;
 * an output row is then a sum of shifted source rows, computed BLOCK floats
 * at a time in registers (128 with AVX-512, where an inexact kernel's sums
 * also leave the registers as finished bytes).  Channels are packed (RGBA
 * keeps R, G, B), so the inner loop is a plain multiply-add over contiguous
 * floats whatever the layout.  Separable kernels run the horizontal taps
 * into the ring and the vertical taps out of it; boxes take running sums
 * (run_band_box).
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-cpu.h"
#include "kconv-target.h"
#include "kconv-error.h"
#include "kconv-team.h"
#include "kconv-tuning.h"
#include "kconv-sample.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* AVX2 and AVX-512 paths, where the CPU has them */
#define KCONV_X86 1
#endif

/* Floats accumulated in registers at once: 8 AVX registers. */
#define BLOCK 64

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

typedef struct
{
  int row;                      /* which ring row */
  int offset;                   /* floats from the start of that row */
  float weight;
} Tap;

static size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* 8 floats: one AVX register, two SSE ones.  GCC's vector extension keeps the
 * accumulators in registers, which an array the vectoriser sees does not. */
typedef float vf __attribute__((vector_size (8 * sizeof (float))));
#define VF_LANES 8

/* No helper takes or returns a 256-bit vector by value: called out of
 * line (a debug build) it would pass it by the plain x86-64 ABI to and
 * from callers built for AVX, which expect it in a register (-Wpsabi). */
#define load_vf(p) ({ vf v_; memcpy (&v_, (p), sizeof v_); v_; })

/* acc[0 .. len) = sum over taps of weight * rows[row][offset + i].
 * len is a multiple of BLOCK and every row is readable that far. */
static ALWAYS_INLINE void
accumulate_block (float *restrict acc, size_t len, const float *const *rows,
    const Tap * taps, int n_taps, size_t i0)
{
  for (; i0 < len; i0 += BLOCK) {
    vf a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    vf a4 = { 0 }, a5 = { 0 }, a6 = { 0 }, a7 = { 0 };
    for (int t = 0; t < n_taps; t++) {
      const float *s = rows[taps[t].row] + taps[t].offset + i0;
      const float w = taps[t].weight;
      a0 += w * load_vf (s + 0 * VF_LANES);
      a1 += w * load_vf (s + 1 * VF_LANES);
      a2 += w * load_vf (s + 2 * VF_LANES);
      a3 += w * load_vf (s + 3 * VF_LANES);
      a4 += w * load_vf (s + 4 * VF_LANES);
      a5 += w * load_vf (s + 5 * VF_LANES);
      a6 += w * load_vf (s + 6 * VF_LANES);
      a7 += w * load_vf (s + 7 * VF_LANES);
    }
    float *o = acc + i0;
    memcpy (o + 0 * VF_LANES, &a0, sizeof a0);
    memcpy (o + 1 * VF_LANES, &a1, sizeof a1);
    memcpy (o + 2 * VF_LANES, &a2, sizeof a2);
    memcpy (o + 3 * VF_LANES, &a3, sizeof a3);
    memcpy (o + 4 * VF_LANES, &a4, sizeof a4);
    memcpy (o + 5 * VF_LANES, &a5, sizeof a5);
    memcpy (o + 6 * VF_LANES, &a6, sizeof a6);
    memcpy (o + 7 * VF_LANES, &a7, sizeof a7);
  }
}

#ifdef KCONV_X86
/* accumulate with 16 floats a register where the CPU has AVX-512: half the
 * instructions, 128 floats a step in 8 accumulators; the tail (len is a
 * multiple of BLOCK) is left to the caller.  Returns how many it did. */
typedef float vf16 __attribute__((vector_size (16 * sizeof (float))));

static KCONV_TARGET_AVX512F size_t
accumulate_avx512 (float *restrict acc, size_t len, const float *const *rows,
    const Tap * taps, int n_taps)
{
  size_t i0 = 0;
  for (; i0 + 128 <= len; i0 += 128) {
    vf16 a[8] = { 0 };
    for (int t = 0; t < n_taps; t++) {
      const float *s = rows[taps[t].row] + taps[t].offset + i0;
      const float w = taps[t].weight;
      for (int k = 0; k < 8; k++) {
        vf16 v;
        memcpy (&v, s + 16 * k, sizeof v);
        a[k] += w * v;
      }
    }
    for (int k = 0; k < 8; k++)
      memcpy (acc + i0 + 16 * k, &a[k], sizeof a[k]);
  }
  return i0;
}
#endif

/* accumulate_avx512 and finish_row at once, for inexact kernels written
 * straight to the frame: the 128 sums of a step leave their registers as
 * bytes (clamped above, truncated; the saturating packs clamp below), and
 * keep, where not 0, marks the bytes of each 64 to write, the others taken
 * from keep_src.  The same bytes as the two apart; returns how many of the
 * n it did. */
static KCONV_TARGET_AVX512BW size_t
accumulate_finish_avx512 (uint8_t * out, size_t n, const float *const *rows,
    const Tap * taps, int n_taps, float bias, int absolute,
    const uint8_t * keep_src, uint64_t keep)
{
  const __m512 vbias = _mm512_set1_ps (bias), top = _mm512_set1_ps (255.f);
  const __m512i absmask = _mm512_set1_epi32 (absolute ? 0x7fffffff : -1);
  /* the packs interleave 128-bit lanes: dwords back in order */
  const __m512i order = _mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13, 2, 6,
      10, 14, 3, 7, 11, 15);
  size_t i0 = 0;
  for (; i0 + 128 <= n; i0 += 128) {
    __m512 a[8];
    for (int k = 0; k < 8; k++)
      a[k] = _mm512_setzero_ps ();
    for (int t = 0; t < n_taps; t++) {
      const float *s = rows[taps[t].row] + taps[t].offset + i0;
      const __m512 w = _mm512_set1_ps (taps[t].weight);
      for (int k = 0; k < 8; k++)
        a[k] = _mm512_fmadd_ps (w, _mm512_loadu_ps (s + 16 * k), a[k]);
    }
    for (int h = 0; h < 2; h++) {
      __m512i q[4];
      for (int k = 0; k < 4; k++) {
        __m512 v = _mm512_castsi512_ps (_mm512_and_si512
            (_mm512_castps_si512 (a[4 * h + k]), absmask));
        q[k] = _mm512_cvttps_epi32 (_mm512_min_ps (_mm512_add_ps (v, vbias),
                top));
      }
      __m512i b = _mm512_packus_epi16 (_mm512_packs_epi32 (q[0], q[1]),
          _mm512_packs_epi32 (q[2], q[3]));
      b = _mm512_permutexvar_epi32 (order, b);
      uint8_t *o = out + i0 + 64 * h;
      if (keep_src)
        b = _mm512_mask_blend_epi8 (keep,
            _mm512_loadu_si512 (keep_src + i0 + 64 * h), b);
      _mm512_storeu_si512 (o, b);
    }
  }
  return i0;
}


/* Widens one source row (NULL: a row of zeros) into packed floats with
 * cols - 1 border pixels around it, laid out by xmap. */
static ALWAYS_INLINE void
load_row (float *restrict out, const uint8_t * srow, const KConvImage * im,
    const int *xmap, int ax, int padded_width)
{
  const int nc = im->n_channels, ps = im->pixel_stride, w = im->width;
  if (!srow) {
    memset (out, 0, (size_t) padded_width * nc * sizeof (float));
    return;
  }
  if (nc == ps) {
    float *o = out + (size_t) ax * nc;
    for (int i = 0; i < w * nc; i++)
      o[i] = srow[i];
  } else {
    for (int c = 0; c < nc; c++) {
      const uint8_t *s = srow + im->channel_offset[c];
      float *o = out + (size_t) ax * nc + c;
      for (int x = 0; x < w; x++)
        o[(size_t) x * nc] = s[(size_t) x * ps];
    }
  }
  for (int x = 0; x < padded_width; x++) {
    if (x == ax)
      x = ax + w;               /* the middle is done */
    if (x >= padded_width)
      break;
    for (int c = 0; c < nc; c++)
      out[(size_t) x * nc + c] = xmap[x] < 0 ? 0.f :
          srow[(size_t) xmap[x] * ps + im->channel_offset[c]];
  }
}

typedef int32_t vi __attribute__((vector_size (8 * sizeof (int32_t))));
typedef uint8_t vb __attribute__((vector_size (8)));

/* Where finish_row puts its bytes: all of them, or (keep_src set) those
 * keep_mask marks in each 4-byte pixel, the others from keep_src. */
typedef struct
{
  const uint8_t *keep_src;
  uint64_t keep_mask;           /* the 4-byte mask twice */
} Put;

/* 8 lanes already within 0..255 to bytes out[i .. i + 8) */
static inline void
put_bytes (uint8_t * out, size_t i, const vi * q, Put put)
{
  vb b = __builtin_convertvector (*q, vb);
  uint64_t v;
  memcpy (&v, &b, sizeof v);
  if (put.keep_src) {
    uint64_t s;
    memcpy (&s, put.keep_src + i, sizeof s);
    v = (v & put.keep_mask) | (s & ~put.keep_mask);
  }
  memcpy (out + i, &v, sizeof v);
}

static inline void
put_byte (uint8_t * out, size_t i, uint8_t v, Put put)
{
  out[i] = !put.keep_src || (put.keep_mask >> (8 * (i % 4)) & 0xff) ? v :
      put.keep_src[i];
}

/* round_half_up (s / d) + offset, clamped, for an exact integer sum s (held
 * in a float) with its sign and absolute value already applied: a float
 * estimate of floor ((2s + d) / 2d), truncated (within 3 of it near the
 * exact path's limit), then three exact integer correction steps. */
static inline uint8_t
finish_exact_one (float sf, int32_t d, int32_t off, float inv_two_d)
{
  const int32_t two_d = 2 * d, s = (int32_t) sf, num = 2 * s + d;
  int32_t q = (int32_t) ((2.f * sf + (float) d) * inv_two_d);
  for (int k = 0; k < 3; k++) {
    int32_t r = num - q * two_d;
    q += (r >= two_d) - (r < 0);
  }
  q += off;
  return (uint8_t) (q < 0 ? 0 : q > 255 ? 255 : q);
}

#ifdef KCONV_X86
/* Four registers of 8 int32 lanes to 32 bytes at out: the saturating packs
 * clamp to 0 .. 255; keep_src, if not NULL, gives the bytes keep does not
 * mark. */
static inline KCONV_TARGET_AVX2 void
put_32 (uint8_t * out, const __m256i q[4], const uint8_t * keep_src,
    __m256i keep)
{
  /* the packs interleave 128-bit lanes: dwords back in order */
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  __m256i w = _mm256_packus_epi16 (_mm256_packs_epi32 (q[0], q[1]),
      _mm256_packs_epi32 (q[2], q[3]));
  w = _mm256_permutevar8x32_epi32 (w, order);
  if (keep_src)
    w = _mm256_blendv_epi8 (_mm256_loadu_si256 ((const __m256i *) keep_src),
        w, keep);
  _mm256_storeu_si256 ((__m256i *) out, w);
}

/* finish_row for inexact kernels, 32 sums to 32 bytes a step: clamped
 * above and truncated (negative sums truncate to 0 or less, which the packs
 * clamp); the same bytes as the general loop.  Returns how many of the n
 * it did. */
static KCONV_TARGET_AVX2 size_t
finish_inexact_avx2 (uint8_t * out, const float *acc, size_t n, float bias,
    int absolute, const uint8_t * keep_src, uint32_t keep_mask)
{
  const __m256 vbias = _mm256_set1_ps (bias), top = _mm256_set1_ps (255.f);
  const __m256 absmask =
      _mm256_castsi256_ps (_mm256_set1_epi32 (absolute ? 0x7fffffff : -1));
  const __m256i keep = _mm256_set1_epi32 ((int32_t) keep_mask);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; k++) {
      __m256 v = _mm256_and_ps (_mm256_loadu_ps (acc + i + 8 * k), absmask);
      v = _mm256_min_ps (_mm256_add_ps (v, vbias), top);
      q[k] = _mm256_cvttps_epi32 (v);
    }
    put_32 (out + i, q, keep_src ? keep_src + i : NULL, keep);
  }
  return i;
}

/* ... and for exact ones: the same steps as finish_row's 8-lane loop (a
 * float estimate of the rounded quotient, floored, then exact integer
 * correction steps), 32 a step. */
static KCONV_TARGET_AVX2 size_t
finish_exact_avx2 (uint8_t * out, const float *acc, size_t n, float sign,
    int absolute, int32_t d, int32_t off, int steps,
    const uint8_t * keep_src, uint32_t keep_mask)
{
  const __m256 vsign = _mm256_set1_ps (sign), fd = _mm256_set1_ps ((float) d);
  const __m256 inv = _mm256_set1_ps (1.0f / (float) (2 * d));
  const __m256 absmask =
      _mm256_castsi256_ps (_mm256_set1_epi32 (absolute ? 0x7fffffff : -1));
  const __m256i vd = _mm256_set1_epi32 (d), two_d = _mm256_set1_epi32 (2 * d);
  const __m256i below_two_d = _mm256_set1_epi32 (2 * d - 1);
  const __m256i voff = _mm256_set1_epi32 (off), zero = _mm256_setzero_si256 ();
  const __m256i keep = _mm256_set1_epi32 ((int32_t) keep_mask);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; k++) {
      __m256 sf = _mm256_mul_ps (_mm256_loadu_ps (acc + i + 8 * k), vsign);
      sf = _mm256_and_ps (sf, absmask);
      const __m256i num = _mm256_add_epi32 (_mm256_slli_epi32
          (_mm256_cvttps_epi32 (sf), 1), vd);
      const __m256 est = _mm256_mul_ps (_mm256_add_ps (_mm256_add_ps (sf, sf),
              fd), inv);
      __m256i t = _mm256_cvttps_epi32 (est);
      /* floor */
      t = _mm256_add_epi32 (t,
          _mm256_castps_si256 (_mm256_cmp_ps (_mm256_cvtepi32_ps (t), est,
                  _CMP_GT_OQ)));
      for (int j = 0; j < steps; j++) {
        const __m256i r = _mm256_sub_epi32 (num, _mm256_mullo_epi32 (t,
                two_d));
        t = _mm256_sub_epi32 (t, _mm256_cmpgt_epi32 (r, below_two_d));
        t = _mm256_add_epi32 (t, _mm256_cmpgt_epi32 (zero, r));
      }
      q[k] = _mm256_add_epi32 (t, voff);
    }
    put_32 (out + i, q, keep_src ? keep_src + i : NULL, keep);
  }
  return i;
}

#define HAVE_FINISH_AVX2 1

/* The same with AVX2: 64 sums a step in 8 registers, two 32-byte stores;
 * keep (the 4-byte mask), where not 0, as for put_32. */
static KCONV_TARGET_AVX2_FMA size_t
accumulate_finish_avx2 (uint8_t * out, size_t n, const float *const *rows,
    const Tap * taps, int n_taps, float bias, int absolute,
    const uint8_t * keep_src, uint32_t keep)
{
  const __m256 vbias = _mm256_set1_ps (bias), top = _mm256_set1_ps (255.f);
  const __m256i absmask = _mm256_set1_epi32 (absolute ? 0x7fffffff : -1);
  const __m256i vkeep = _mm256_set1_epi32 ((int) keep);
  size_t i0 = 0;
  for (; i0 + 64 <= n; i0 += 64) {
    __m256 a[8];
    for (int k = 0; k < 8; k++)
      a[k] = _mm256_setzero_ps ();
    for (int t = 0; t < n_taps; t++) {
      const float *s = rows[taps[t].row] + taps[t].offset + i0;
      const __m256 w = _mm256_set1_ps (taps[t].weight);
      for (int k = 0; k < 8; k++)
        a[k] = _mm256_fmadd_ps (w, _mm256_loadu_ps (s + 8 * k), a[k]);
    }
    for (int h = 0; h < 2; h++) {
      __m256i q[4];
      for (int k = 0; k < 4; k++) {
        __m256 v = _mm256_castsi256_ps (_mm256_and_si256
            (_mm256_castps_si256 (a[4 * h + k]), absmask));
        q[k] = _mm256_cvttps_epi32 (_mm256_min_ps (_mm256_add_ps (v, vbias),
                top));
      }
      put_32 (out + i0 + 32 * h, q, keep_src ? keep_src + i0 + 32 * h : NULL,
          vkeep);
    }
  }
  return i0;
}
#endif

/* Packed sums to 8-bit samples, by the rule in kconv.h.  Written with
 * explicit vectors: the vectoriser gives up on this mix of widths. */
static ALWAYS_INLINE void
finish_row (uint8_t * restrict out, const float *restrict acc, size_t n,
    const KConvPlan * plan, Put put, int avx2)
{
  const float sign = plan->exact && plan->negate ? -1.f : 1.f;
  const uint32_t absmask = plan->absolute ? 0x7fffffffu : 0xffffffffu;
  const vi vabs = (vi) { 0 } +(int32_t) absmask;
  size_t i = 0;

  if (plan->exact) {
    const int32_t d = plan->divisor, two_d = 2 * d, off = plan->ioffset;
    const float inv_two_d = 1.0f / (float) two_d;
    /* the estimate, rounded down, is off by at most 3 / d (sums below
     * 2^24): from d = 4 on, one correction step makes it exact */
    const int steps = d >= 4 ? 1 : 3;
#ifdef HAVE_FINISH_AVX2
    if (avx2)
      i = finish_exact_avx2 (out, acc, n, sign, plan->absolute, d, off,
          steps, put.keep_src, (uint32_t) put.keep_mask);
#endif
    for (; i + VF_LANES <= n; i += VF_LANES) {
      vf sf = load_vf (acc + i) * sign;
      sf = (vf) ((vi) sf & vabs);
      vi s = __builtin_convertvector (sf, vi);
      vi num = 2 * s + d;
      const vf est = (2.f * sf + (float) d) * inv_two_d;
      vi q = __builtin_convertvector (est, vi);
      q += (vi) (__builtin_convertvector (q, vf) > est);        /* floor: -1 */
      for (int k = 0; k < steps; k++) {
        vi r = num - q * two_d;
        q = q - (r >= two_d) + (r < 0); /* true is -1 */
      }
      q += off;
      q &= ~(q < 0);
      vi high = q > 255;
      q = (q & ~high) | (255 & high);
      put_bytes (out, i, &q, put);
    }
    for (; i < n; i++) {
      float sf = acc[i] * sign;
      sf = plan->absolute ? fabsf (sf) : sf;
      put_byte (out, i, finish_exact_one (sf, d, off, inv_two_d), put);
    }
  } else {
    const float bias = plan->bias;
#ifdef HAVE_FINISH_AVX2
    if (avx2)
      i = finish_inexact_avx2 (out, acc, n, bias, plan->absolute,
          put.keep_src, (uint32_t) put.keep_mask);
#endif
    for (; i + VF_LANES <= n; i += VF_LANES) {
      vf v = (vf) ((vi) load_vf (acc + i) & vabs) + bias;
      /* clamped first, truncation is floor */
      vi lo = v < 0.f, hi = v > 255.f;
      v = (vf) ((vi) v & ~lo);
      v = (vf) (((vi) v & ~hi) | ((vi) ((vf) {
                  0}
                  +255.f) & hi));
      vi q = __builtin_convertvector (v, vi);
      put_bytes (out, i, &q, put);
    }
    for (; i < n; i++) {
      float v = (plan->absolute ? fabsf (acc[i]) : acc[i]) + bias;
      v = v < 0.f ? 0.f : v;
      v = v > 255.f ? 255.f : v;
      put_byte (out, i, (uint8_t) (int32_t) v, put);
    }
  }
}

static void
store_row (uint8_t * drow, const uint8_t * srow, const uint8_t * packed,
    const KConvImage * im)
{
  const int nc = im->n_channels, ps = im->pixel_stride;
  if (srow)
    memcpy (drow, srow, (size_t) im->width * ps);       /* alpha, padding */
  for (int c = 0; c < nc; c++) {
    uint8_t *d = drow + im->channel_offset[c];
    const uint8_t *p = packed + c;
    for (int x = 0; x < im->width; x++)
      d[(size_t) x * ps] = p[(size_t) x * nc];
  }
}

/* Samples in 16-bit words (depth 9 .. 16), widened and finished by plain
 * loops the vectoriser takes: the word's value is masked out of it, so a
 * word with stray bits reads as the reference reads it. */
static ALWAYS_INLINE uint16_t
word_at (const uint8_t * p, int big_endian)
{
  uint16_t w;
  memcpy (&w, p, sizeof w);
  return big_endian ? __builtin_bswap16 (w) : w;
}

/* load_row for 16-bit words */
static ALWAYS_INLINE void
load_row_deep (float *restrict out, const uint8_t * srow,
    const KConvImage * im, const int *xmap, int ax, int padded_width)
{
  const int nc = im->n_channels, ps = im->pixel_stride, w = im->width;
  const int shift = im->shift, be = im->big_endian;
  const uint32_t mask = (1u << im->depth) - 1;
  if (!srow) {
    memset (out, 0, (size_t) padded_width * nc * sizeof (float));
    return;
  }
  /* every word of the pixel a channel, in order: one contiguous run */
  int in_order = ps == 2 * nc && !be;
  for (int c = 0; c < nc; c++)
    in_order &= im->channel_offset[c] == 2 * c;
  if (in_order)
    for (size_t i = 0; i < (size_t) w * nc; i++)
      out[(size_t) ax * nc + i] = (float) ((word_at (srow + 2 * i, 0) >>
              shift) & mask);
  for (int c = 0; c < nc; c++) {
    const uint8_t *s = srow + im->channel_offset[c];
    float *o = out + (size_t) ax * nc + c;
    /* (in order: the middle is done) */
    if (!in_order && be)
      for (int x = 0; x < w; x++)
        o[(size_t) x * nc] = (float) ((word_at (s + (size_t) x * ps, 1) >>
                shift) & mask);
    if (!in_order && !be)
      for (int x = 0; x < w; x++)
        o[(size_t) x * nc] = (float) ((word_at (s + (size_t) x * ps, 0) >>
                shift) & mask);
    for (int x = 0; x < padded_width; x++) {
      if (x == ax)
        x = ax + w;             /* the middle is done */
      if (x >= padded_width)
        break;
      out[(size_t) x * nc + c] = xmap[x] < 0 ? 0.f :
          (float) ((word_at (s + (size_t) xmap[x] * ps, be) >> shift) & mask);
    }
  }
}

/* A 16-bit word anywhere in a frame (rows need not be 2-byte aligned) */
typedef uint16_t word16 __attribute__((aligned (1), may_alias));

/* finish_row_deep's division by a divisor d that is not 2^k, floor
 * ((2 s + d) / 2d), estimated in floats and corrected in `steps` steps */
static ALWAYS_INLINE void
finish_exact_deep (word16 * restrict out, const float *restrict acc,
    size_t n, float sign, int absolute, int32_t d, int32_t off,
    int32_t maxval, int shift, int steps)
{
  const int32_t two_d = 2 * d;
  const float inv_two_d = 1.0f / (float) two_d;
  for (size_t i = 0; i < n; i++) {
    float sf = acc[i] * sign;
    sf = absolute ? fabsf (sf) : sf;
    const int32_t num = 2 * (int32_t) sf + d;
    const float est = (2.f * sf + (float) d) * inv_two_d;
    int32_t q = (int32_t) est;
    q -= (float) q > est;       /* truncated to floored (no call) */
    for (int k = 0; k < steps; k++) {
      int32_t r = num - q * two_d;
      q += (r >= two_d) - (r < 0);
    }
    q += off;
    q = q < 0 ? 0 : q > maxval ? maxval : q;
    out[i] = (uint16_t) (q << shift);
  }
}

/* Packed sums to samples 0 .. plan->maxval by the rule in kconv.h, as
 * finish_row does for bytes, shifted up `shift` bits (little-endian words
 * straight into a frame whose words are all channels, in order) */
static ALWAYS_INLINE void
finish_row_deep (word16 * restrict out, const float *restrict acc,
    size_t n, const KConvPlan * plan, int shift)
{
  const int32_t maxval = plan->maxval;
  if (plan->exact) {
    const float sign = plan->negate ? -1.f : 1.f;
    const int32_t d = plan->divisor, two_d = 2 * d, off = plan->ioffset;
    const int absolute = plan->absolute;
    if ((d & (d - 1)) == 0) {
      /* a divisor of 2^k (edges: 1, binomial blurs: 16, 256): the floor
       * of (2 s + d) / 2d is a shift, no division to correct */
      const int k = __builtin_ctz ((unsigned) two_d);
      for (size_t i = 0; i < n; i++) {
        float sf = acc[i] * sign;
        sf = absolute ? fabsf (sf) : sf;
        int32_t q = ((2 * (int32_t) sf + d) >> k) + off;
        q = q < 0 ? 0 : q > maxval ? maxval : q;
        out[i] = (uint16_t) (q << shift);
      }
      return;
    }
    /* the estimate, floored, is off by at most 3 / d below 2^24 (see
     * finish_row): from d = 4 on one step corrects it (4K RGBA box 31x31
     * at 10 bits: 14.4-14.9 ms against 18.1-19.0 with three steps) */
    if (d >= 4)
      finish_exact_deep (out, acc, n, sign, absolute, d, off, maxval, shift, 1);
    else
      finish_exact_deep (out, acc, n, sign, absolute, d, off, maxval, shift, 3);
  } else {
    const float bias = plan->bias, top = (float) maxval;
    const int absolute = plan->absolute;
    for (size_t i = 0; i < n; i++) {
      float v = (absolute ? fabsf (acc[i]) : acc[i]) + bias;
      /* clamped first, truncation is floor */
      v = v < 0.f ? 0.f : v > top ? top : v;
      out[i] = (uint16_t) ((int32_t) v << shift);
    }
  }
}

/* store_row for 16-bit words: the packed words (finished with their
 * shift) into their channels */
static ALWAYS_INLINE void
store_row_deep (uint8_t * drow, const uint8_t * srow,
    const uint16_t * packed, const KConvImage * im)
{
  /* (read once: the byte stores below may alias *im) */
  const int nc = im->n_channels, ps = im->pixel_stride;
  const int w = im->width, be = im->big_endian;
  if (srow)
    memcpy (drow, srow, (size_t) w * ps);       /* alpha, padding */
  for (int c = 0; c < nc; c++) {
    uint8_t *d = drow + im->channel_offset[c];
    const uint16_t *p = packed + c;
    for (int x = 0; x < w; x++) {
      uint16_t v = p[(size_t) x * nc];
      v = be ? __builtin_bswap16 (v) : v;
      memcpy (d + (size_t) x * ps, &v, sizeof v);
    }
  }
}

/* Word k of each 4-word pixel of d put back from s (a pixel whose three
 * other words were convolved with it), eight bytes at a time */
static ALWAYS_INLINE void
restore_words (word16 * restrict d, const word16 * restrict s, int w, int k)
{
  typedef uint64_t word64 __attribute__((aligned (2), may_alias));
  const uint64_t m = 0xffffull << (16 * k);
  word64 *restrict d64 = (word64 *) d;
  const word64 *restrict s64 = (const word64 *) s;
  for (int x = 0; x < w; x++)
    d64[x] = (d64[x] & ~m) | (s64[x] & m);
}

/* The hot loops, built once for each instruction set (x86-64-v4: AVX-512,
 * v3: AVX2 and FMA, and plain x86-64) and picked for a frame by
 * kconv_cpu_isa (), so that a knob can hold a machine to a narrower set
 * (see loops_for, below). */
typedef struct
{
  void (*accumulate_block) (float *restrict acc, size_t len,
      const float *const *rows, const Tap * taps, int n_taps, size_t i0);
  void (*load_row) (float *restrict out, const uint8_t * srow,
      const KConvImage * im, const int *xmap, int ax, int padded_width);
  void (*finish_row) (uint8_t * restrict out, const float *restrict acc,
      size_t n, const KConvPlan * plan, Put put);
  void (*update_columns) (int32_t * restrict col, const float *restrict in,
      const float *restrict out, size_t n);
  void (*window_sums) (float *restrict acc, const int32_t * restrict prefix,
      size_t n, size_t span, float weight);
  void (*update_columns_bytes) (int32_t * restrict col,
      const uint8_t * restrict in, const uint8_t * restrict out, size_t n);
  void (*load_row_deep) (float *restrict out, const uint8_t * srow,
      const KConvImage * im, const int *xmap, int ax, int padded_width);
  void (*finish_row_deep) (word16 * restrict out, const float *restrict acc,
      size_t n, const KConvPlan * plan, int shift);
  void (*store_row_deep) (uint8_t * drow, const uint8_t * srow,
      const uint16_t * packed, const KConvImage * im);
  void (*restore_words) (word16 * restrict d, const word16 * restrict s,
      int w, int k);
} Loops;

/* Everything the threads share. */
typedef struct
{
  const Loops *loops;
  const KConvPlan *plan;
  const KConvImage *src, *dst;
  int separable;
  int deep;                     /* 16-bit words (the *_deep loops) */
  int words_in_order;           /* deep, little-endian, every word a
                                 * channel in order: finished in place */
  int restore_word;             /* convolving 4 words for 3: the fourth,
                                 * put back from the source (else -1) */
  int box;                      /* running sums: every weight box_weight */
  float box_weight;
  int padded_width;             /* width + cols - 1 */
  size_t raw_len;               /* floats in a widened source row */
  size_t out_len;               /* packed output floats, rounded to BLOCK */
  size_t ring_len;              /* floats in one ring row */
  int *xmap;
  uint32_t keep_mask;           /* convolving 4 bytes for 3: the real ones */
  uint64_t keep_bits;           /* the same, a bit a byte over 64 bytes */
  int isa;                      /* kconv_cpu_isa (), once a frame */
  int fused;                    /* accumulate_finish_avx512 (or _avx2)
                                 * takes the rows */
  Tap *taps2d, *taps_h, *taps_v;
  int n_taps2d, n_taps_h, n_taps_v;
} Job;

static size_t
thread_floats (const Job * job)
{
  /* column and prefix sums, two source rows, the sums */
  if (job->box)
    return round_up (4 * job->raw_len + 2 * job->out_len + 2 * BLOCK, 16);
  size_t ring = (size_t) job->plan->rows * job->ring_len;
  size_t extra = job->separable ? job->raw_len : 0;
  /* packed outputs: bytes or 16-bit words, as floats */
  size_t packed = job->out_len * (job->deep ? 2 : 1) / sizeof (float);
  return round_up (ring + extra + job->out_len + packed + BLOCK, 16);
}

static const uint8_t *
source_row (const Job * job, int logical_row)
{
  int sy = kconv_border_index (job->plan->border, logical_row,
      job->src->height);
  return sy < 0 ? NULL : job->src->data + sy * job->src->stride;
}

/* acc[0 .. out_len) from the taps: with 16 floats a register where
 * AVX-512 is in use, the rest (or all) with 8 */
static void
accumulate (const Job * job, float *restrict acc, const float *const *rows,
    const Tap * taps, int n_taps)
{
  size_t done = 0;
#ifdef KCONV_X86
  if (job->isa >= KCONV_ISA_AVX512)
    done = accumulate_avx512 (acc, job->out_len, rows, taps, n_taps);
#endif
  job->loops->accumulate_block (acc, job->out_len, rows, taps, n_taps, done);
}

/* Source row s (NULL: zeros) widened to packed floats, border applied */
static void
widen_row (const Job * job, float *out, const uint8_t * s)
{
  if (job->deep)
    job->loops->load_row_deep (out, s, job->src, job->xmap, job->plan->ax,
        job->padded_width);
  else
    job->loops->load_row (out, s, job->src, job->xmap, job->plan->ax,
        job->padded_width);
}

/* Fills ring row for source row `logical_row` (border applied). */
static void
fill_ring_row (const Job * job, float *ring_row, float *raw, int logical_row,
    const float **one_row)
{
  const uint8_t *s = source_row (job, logical_row);
  widen_row (job, job->separable ? raw : ring_row, s);
  if (!job->separable)
    return;
  one_row[0] = raw;
  accumulate (job, ring_row, one_row, job->taps_h, job->n_taps_h);
}

/* Output row y from its sums (acc), by the rule in kconv.h; the first
 * `from` outputs are written already (only where they go straight to the
 * frame: from is 0 otherwise). */
static void
emit_row (const Job * job, int y, const float *acc, uint8_t * packed,
    size_t from)
{
  size_t n = (size_t) job->src->width * job->src->n_channels - from;
  uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride + from;
  const uint8_t *srow =
      job->src->data + (ptrdiff_t) y * job->src->stride + from;
  const Put all = { NULL, 0 };
  acc += from;
  if (job->deep && job->words_in_order) {
    job->loops->finish_row_deep ((word16 *) drow, acc, n, job->plan,
        job->src->shift);
    if (job->restore_word >= 0)
      job->loops->restore_words ((word16 *) drow, (const word16 *) srow,
          job->src->width, job->restore_word);
  } else if (job->deep) {
    /* the bytes no channel covers, copied unless kept or there are none */
    const int others = 2 * job->src->n_channels < job->src->pixel_stride
        && !job->dst->keep_other_bytes;
    job->loops->finish_row_deep ((word16 *) packed, acc, n, job->plan,
        job->src->shift);
    job->loops->store_row_deep (drow, others ? srow : NULL,
        (const uint16_t *) packed, job->src);
  } else if (job->keep_mask) {
    /* 4-byte pixels convolved whole: the untouched bytes put back */
    const Put keep = { srow, job->keep_mask * 0x100000001ull };
    job->loops->finish_row (drow, acc, n, job->plan, keep);
  } else if (job->src->n_channels == job->src->pixel_stride) {
    job->loops->finish_row (drow, acc, n, job->plan, all);
  } else {
    job->loops->finish_row (packed, acc, n, job->plan, all);
    store_row (drow, job->dst->keep_other_bytes ? NULL : srow, packed,
        job->src);
  }
}

static void
run_band (const Job * job, float *mem, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const int rows = plan->rows;
  float *ring = mem;
  float *raw = ring + (size_t) rows * job->ring_len;
  float *acc = raw + (job->separable ? job->raw_len : 0);
  uint8_t *packed = (uint8_t *) (acc + job->out_len);
  const float *ordered[KCONV_MAX_KERNEL_SIZE];
  const float *one_row[1];

  /* ring slot of logical row L is L mod rows */
  for (int y = y0; y < y1; y++) {
    int first = y - plan->ay;
    int start = y == y0 ? first : first + rows - 1;
    for (int l = start; l < first + rows; l++) {
      int slot = ((l % rows) + rows) % rows;
      fill_ring_row (job, ring + (size_t) slot * job->ring_len, raw, l,
          one_row);
    }
    for (int ky = 0; ky < rows; ky++) {
      int slot = (((first + ky) % rows) + rows) % rows;
      ordered[ky] = ring + job->ring_len * (size_t) slot;
    }
    size_t done = 0;
#ifdef KCONV_X86
    if (job->fused) {
      const size_t n = (size_t) job->src->width * job->src->n_channels;
      const uint8_t *srow = job->src->data + (ptrdiff_t) y * job->src->stride;
      uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride;
      done = job->isa >= KCONV_ISA_AVX512 ?
          accumulate_finish_avx512 (drow, n, ordered, job->taps2d,
          job->n_taps2d, plan->bias, plan->absolute,
          job->keep_mask ? srow : NULL, job->keep_bits) :
          accumulate_finish_avx2 (drow, n, ordered, job->taps2d,
          job->n_taps2d, plan->bias, plan->absolute,
          job->keep_mask ? srow : NULL, job->keep_mask);
      if (done == n)
        continue;
      job->loops->accumulate_block (acc, job->out_len, ordered, job->taps2d,
          job->n_taps2d, done);
    } else
#endif
    if (job->separable)
      accumulate (job, acc, ordered, job->taps_v, job->n_taps_v);
    else
      accumulate (job, acc, ordered, job->taps2d, job->n_taps2d);
    emit_row (job, y, acc, packed, done);
  }
}

/* Boxes (exact kernels whose weights are all one value) by running sums,
 * at a cost that does not grow with their size: column sums of the last
 * rows source rows, updated by one row in and one out; along the row, the
 * prefix sums of those, of which a window sum is a difference.  In int32:
 * prefix sums of a wide box pass 2^24. */
static ALWAYS_INLINE void
update_columns (int32_t * restrict col, const float *restrict in,
    const float *restrict out, size_t n)
{
  for (size_t i = 0; i < n; i++)
    col[i] += (int32_t) in[i] - (int32_t) out[i];
}

#ifdef KCONV_X86
/* Inclusive prefix sums of each channel (stride nc = 1 or 4), 8 lanes a
 * step, into prefix[i + nc]; n a multiple of 8. */
static KCONV_TARGET_AVX2 void
prefix_sums_avx2 (int32_t * restrict prefix, const int32_t * restrict col,
    size_t n, int nc)
{
  __m256i carry = _mm256_setzero_si256 ();
  for (size_t i = 0; i < n; i += 8) {
    __m256i v = _mm256_loadu_si256 ((const __m256i *) (col + i));
    if (nc == 1) {
      v = _mm256_add_epi32 (v, _mm256_slli_si256 (v, 4));
      v = _mm256_add_epi32 (v, _mm256_slli_si256 (v, 8));
      const __m256i low3 = _mm256_shuffle_epi32 (v, 0xff);
      v = _mm256_add_epi32 (v, _mm256_permute2x128_si256 (low3, low3, 0x08));
      v = _mm256_add_epi32 (v, carry);
      carry = _mm256_permutevar8x32_epi32 (v, _mm256_set1_epi32 (7));
    } else {                    /* 4: the upper pixel adds the lower */
      v = _mm256_add_epi32 (v, _mm256_permute2x128_si256 (v, v, 0x08));
      v = _mm256_add_epi32 (v, carry);
      carry = _mm256_permute2x128_si256 (v, v, 0x11);
    }
    _mm256_storeu_si256 ((__m256i *) (prefix + i + nc), v);
  }
}

#define HAVE_PREFIX_AVX2 1

#endif

static void
prefix_sums (int32_t * restrict prefix, const int32_t * restrict col,
    size_t n, int nc, int isa)
{
  memset (prefix, 0, (size_t) nc * sizeof *prefix);
#ifdef HAVE_PREFIX_AVX2
  if ((nc == 1 || nc == 4) && isa >= KCONV_ISA_AVX2) {
    prefix_sums_avx2 (prefix, col, round_up (n, 8), nc);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++)
    prefix[i + nc] = prefix[i] + col[i];
}

static ALWAYS_INLINE void
window_sums (float *restrict acc, const int32_t * restrict prefix, size_t n,
    size_t span, float weight)
{
  for (size_t i = 0; i < n; i++)
    acc[i] = (float) (prefix[i + span] - prefix[i]) * weight;
}

/* The same from the source rows' bytes (either NULL: a row of zeros), where
 * every byte of a pixel is convolved: over the frame's own columns, the
 * border's copied from them after (border_columns). */
static ALWAYS_INLINE void
update_columns_bytes (int32_t * restrict col, const uint8_t * restrict in,
    const uint8_t * restrict out, size_t n)
{
  if (in && out)
    for (size_t i = 0; i < n; i++)
      col[i] += (int32_t) in[i] - (int32_t) out[i];
  else if (in)
    for (size_t i = 0; i < n; i++)
      col[i] += in[i];
  else if (out)
    for (size_t i = 0; i < n; i++)
      col[i] -= out[i];
}

static void
border_columns (int32_t * col, const Job * job)
{
  const int nc = job->src->n_channels, ax = job->plan->ax;
  for (int x = 0; x < job->padded_width; x++) {
    if (x == ax)
      x = ax + job->src->width; /* the middle is done */
    if (x >= job->padded_width)
      break;
    for (int c = 0; c < nc; c++)
      col[(size_t) x * nc + c] = job->xmap[x] < 0 ? 0 :
          col[(size_t) (ax + job->xmap[x]) * nc + c];
  }
}

static void
run_band_box (const Job * job, float *mem, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const int nc = job->src->n_channels;
  const size_t n = (size_t) job->padded_width * nc;
  int32_t *col = (int32_t *) mem;
  int32_t *prefix = col + job->raw_len;
  float *in = (float *) (prefix + job->raw_len + BLOCK);
  float *out = in + job->raw_len, *acc = out + job->raw_len;
  uint8_t *packed = (uint8_t *) (acc + job->out_len);

  /* from the bytes where every byte is convolved, else widened rows */
  const int bytes = !job->deep && nc == job->src->pixel_stride;
  int32_t *middle = col + (size_t) plan->ax * nc;
  const size_t row_n = (size_t) job->src->width * nc;

  memset (col, 0, job->raw_len * sizeof *col);
  memset (out, 0, job->raw_len * sizeof *out);
  for (int k = 0; k < plan->rows; k++) {
    const uint8_t *srow = source_row (job, y0 - plan->ay + k);
    if (bytes) {
      job->loops->update_columns_bytes (middle, srow, NULL, row_n);
      continue;
    }
    widen_row (job, in, srow);
    job->loops->update_columns (col, in, out, n);
  }
  for (int y = y0; y < y1; y++) {
    const uint8_t *entering = source_row (job, y - plan->ay + plan->rows - 1);
    const uint8_t *leaving = source_row (job, y - plan->ay - 1);
    if (y > y0 && bytes) {
      job->loops->update_columns_bytes (middle, entering, leaving, row_n);
    } else if (y > y0) {
      widen_row (job, in, entering);
      widen_row (job, out, leaving);
      job->loops->update_columns (col, in, out, n);
    }
    if (bytes)
      border_columns (col, job);
    prefix_sums (prefix, col, n, nc, job->isa);
    job->loops->window_sums (acc, prefix, (size_t) job->src->width * nc,
        (size_t) plan->cols * nc, job->box_weight);
    emit_row (job, y, acc, packed, 0);
  }
}

/* Non-zero taps only: a sparse kernel (laplacian, sobel) costs what it uses. */
static int
make_taps (Tap * taps, const float *w, int rows, int cols, int nc, float scale)
{
  int n = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      if (w[r * cols + c] != 0.f) {
        taps[n].row = r;
        taps[n].offset = c * nc;
        taps[n].weight = w[r * cols + c] * scale;
        n++;
      }
  return n;
}

/* Each loop once per instruction set: the bodies above, inlined into
 * functions built for it. */
#define ISA_VERSION(attr, name, suffix, params, args) \
  attr static void name##_##suffix params { name args; }
#ifdef KCONV_X86
#define ISA_VERSIONS(name, params, args) \
  ISA_VERSION (__attribute__ ((target ("arch=x86-64-v4"))), name, v4, \
      params, args) \
  ISA_VERSION (__attribute__ ((target ("arch=x86-64-v3"))), name, v3, \
      params, args) \
  ISA_VERSION (, name, base, params, args)
#else
#define ISA_VERSIONS(name, params, args) \
  ISA_VERSION (, name, base, params, args)
#endif

ISA_VERSIONS (accumulate_block, (float *restrict acc, size_t len,
        const float *const *rows, const Tap * taps, int n_taps, size_t i0),
    (acc, len, rows, taps, n_taps, i0))
    ISA_VERSIONS (load_row, (float *restrict out, const uint8_t * srow,
        const KConvImage * im, const int *xmap, int ax, int padded_width),
    (out, srow, im, xmap, ax, padded_width))
    ISA_VERSIONS (update_columns, (int32_t * restrict col,
        const float *restrict in, const float *restrict out, size_t n),
    (col, in, out, n))
    ISA_VERSIONS (window_sums, (float *restrict acc,
        const int32_t * restrict prefix, size_t n, size_t span,
        float weight), (acc, prefix, n, span, weight))
    ISA_VERSIONS (update_columns_bytes, (int32_t * restrict col,
        const uint8_t * restrict in, const uint8_t * restrict out, size_t n),
    (col, in, out, n))
    ISA_VERSIONS (load_row_deep, (float *restrict out, const uint8_t * srow,
        const KConvImage * im, const int *xmap, int ax, int padded_width),
    (out, srow, im, xmap, ax, padded_width))
    ISA_VERSIONS (finish_row_deep, (word16 * restrict out,
        const float *restrict acc, size_t n, const KConvPlan * plan,
        int shift), (out, acc, n, plan, shift))
    ISA_VERSIONS (store_row_deep, (uint8_t * drow, const uint8_t * srow,
        const uint16_t * packed, const KConvImage * im),
    (drow, srow, packed, im))
    ISA_VERSIONS (restore_words, (word16 * restrict d,
        const word16 * restrict s, int w, int k), (d, s, w, k))
/* finish_row takes its AVX2 steps or not as its build allows */
#ifdef KCONV_X86
    ISA_VERSION ( __attribute__((target ("arch=x86-64-v4"))), finish_row, v4,
    (uint8_t * restrict out, const float *restrict acc, size_t n,
        const KConvPlan * plan, Put put), (out, acc, n, plan, put, 1))
    ISA_VERSION ( __attribute__((target ("arch=x86-64-v3"))), finish_row, v3,
    (uint8_t * restrict out, const float *restrict acc, size_t n,
        const KConvPlan * plan, Put put), (out, acc, n, plan, put, 1))
#endif
    ISA_VERSION (, finish_row, base, (uint8_t * restrict out,
        const float *restrict acc, size_t n, const KConvPlan * plan,
        Put put), (out, acc, n, plan, put, 0))
#define LOOPS(suffix) { accumulate_block_##suffix, load_row_##suffix, \
  finish_row_##suffix, update_columns_##suffix, window_sums_##suffix, \
  update_columns_bytes_##suffix, load_row_deep_##suffix, \
  finish_row_deep_##suffix, store_row_deep_##suffix, restore_words_##suffix }
     static const Loops *loops_for (int isa)
{
#ifdef KCONV_X86
  static const Loops v4 = LOOPS (v4), v3 = LOOPS (v3);
  if (isa >= KCONV_ISA_AVX512)
    return &v4;
  if (isa >= KCONV_ISA_AVX2)
    return &v3;
#endif
  static const Loops base = LOOPS (base);
  (void) isa;
  return &base;
}

/* A frame in bands of rows, one a thread, each with its own scratch. */
typedef struct
{
  const Job *job;
  float *scratch;
  size_t per_thread;
} Bands;

static void
run_bands (int t, int n, void *ctx)
{
  const Bands *b = ctx;
  int y0, y1;
  kconv_band (b->job->src->height, t, n, &y0, &y1);
  if (y0 < y1 && b->job->box)
    run_band_box (b->job, b->scratch + b->per_thread * t, y0, y1);
  else if (y0 < y1)
    run_band (b->job, b->scratch + b->per_thread * t, y0, y1);
}

KConvStatus
kconv_cpu_run (const KConvPlan * plan, KConvCpuPass pass,
    const KConvCpuFixed * fixed, const KConvCpuBox * box, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst)
{
  Job job = { 0 };
  KConvImage in_order = *src;
  /* 16-bit words: small kernels in one pass over words (kconv-words.c,
   * pass KCONV_CPU_FIXED, where the backend found it takes the plan),
   * others in the float passes: direct, separable, or running sums over
   * widened rows */
  job.deep = kconv_image_deep (src);
  /* every word of the pixel a channel, in order */
  int words_contiguous = src->pixel_stride == 2 * src->n_channels;
  for (int c = 0; c < src->n_channels; c++)
    words_contiguous &= src->channel_offset[c] == 2 * c;
  job.words_in_order = job.deep && !src->big_endian && words_contiguous;
  /* The same for 3 words of 4 (RGBA64): for small kernels and boxes, all
   * four convolved in place and the fourth put back costs less than
   * gathering three (a 3x3 on 4K: 3.0x the 8-bit time, against 6.5x);
   * large ones would pay a third more sums */
  job.restore_word = -1;
  if (job.deep && !src->big_endian && src->pixel_stride == 8
      && src->n_channels == 3 && !dst->keep_other_bytes
      && (plan->rows * plan->cols <= 49 || pass == KCONV_CPU_BOX)) {
    int words = 0;
    for (int c = 0; c < 3; c++)
      words |= src->channel_offset[c] % 2 ? 0x10 :
          1 << src->channel_offset[c] / 2;
    if (words == 0x7 || words == 0xb || words == 0xd || words == 0xe) {
      job.restore_word = __builtin_ctz (~words & 0xf);
      for (int c = 0; c < 4; c++)
        in_order.channel_offset[c] = 2 * c;
      in_order.n_channels = 4;
      src = &in_order;
      job.words_in_order = 1;
    }
  }
  if (job.deep && pass == KCONV_CPU_FIXED) {
    /* (RGBA64's four words, the fourth put back, are in order by now) */
    if (words_contiguous || job.restore_word >= 0)
      return kconv_cpu_words_run (plan, n_threads, scratch, src, dst,
          job.restore_word);
    pass = plan->separable && plan->rows * plan->cols >= 9 ?
        KCONV_CPU_SEPARABLE : KCONV_CPU_DIRECT;
  }
  /* Gathering 3 of 4 bytes costs more than a small kernel: convolve the
   * fourth too and put it back afterwards (always in fixed point and by
   * running sums, where a fourth byte costs next to nothing). */
  if (!job.deep && src->pixel_stride == 4 && src->n_channels == 3
      && (plan->rows * plan->cols <= 49 || pass == KCONV_CPU_FIXED
          || pass == KCONV_CPU_BOX)
      && !dst->keep_other_bytes) {
    uint8_t mask[4] = { 0 };
    for (int c = 0; c < 3; c++)
      mask[src->channel_offset[c]] = 0xff;
    memcpy (&job.keep_mask, mask, 4);
    in_order.n_channels = 4;
  }
  const int nc = in_order.n_channels;
  /* When every byte is convolved, channel order is irrelevant: read and
   * write them in memory order (BGR's offsets 2, 1, 0 become 0, 1, 2). */
  if (!job.deep && nc == src->pixel_stride) {
    for (int c = 0; c < nc; c++)
      in_order.channel_offset[c] = c;
    src = &in_order;
  }
  if (pass == KCONV_CPU_FIXED && fixed && nc == src->pixel_stride)
    return kconv_cpu_fixed_run (fixed, n_threads, scratch, src, dst,
        job.keep_mask);
  if (pass == KCONV_CPU_BOX && box && nc == src->pixel_stride && nc <= 4)
    return kconv_cpu_box_run (box, n_threads, scratch, src, dst, job.keep_mask);
  job.plan = plan;
  job.src = src;
  job.dst = dst;
  job.separable = pass != KCONV_CPU_DIRECT && plan->separable;
  job.box = pass == KCONV_CPU_BOX;
  /* (an inexact box: only deeper samples' plans, past the exact bound) */
  job.box_weight = plan->weights[0] * (plan->exact ? 1.f : plan->scale);
  job.padded_width = src->width + plan->cols - 1;
  job.out_len = round_up ((size_t) src->width * nc, BLOCK);
  job.raw_len = round_up ((size_t) job.padded_width * nc + job.out_len, 16);
  job.ring_len = job.separable ? job.out_len : job.raw_len;
  job.isa = kconv_cpu_isa ();
  job.loops = loops_for (job.isa);
#ifdef KCONV_X86
  /* inexact sums written straight to the frame: finished in registers */
  job.fused = !job.deep && !plan->exact && !job.separable && !job.box
      && (job.keep_mask || nc == src->pixel_stride)
      && job.isa >= KCONV_ISA_AVX2;
  job.keep_bits = kconv_cpu_keep_bits (job.keep_mask);
#endif

  if (n_threads < 1)
    n_threads = 1;
  if (n_threads > src->height)
    n_threads = src->height;

  size_t per_thread = thread_floats (&job);
  KConvStatus st = kconv_cpu_scratch_reserve (scratch, per_thread * n_threads);
  if (st != KCONV_OK)
    return st;

  int n_taps = plan->rows * plan->cols;
  job.xmap = kconv_plan_border_map (plan, src->width);
  Tap *taps = malloc ((n_taps + plan->rows + plan->cols) * sizeof (Tap));
  if (!job.xmap || !taps) {
    free (job.xmap);
    free (taps);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for a "
        "border map");
  }

  float scale = plan->exact ? 1.f : plan->scale;
  if (job.separable) {
    job.taps_h = taps;
    job.n_taps_h = make_taps (job.taps_h, plan->h, 1, plan->cols, nc, 1.f);
    job.taps_v = taps + job.n_taps_h;
    job.n_taps_v = make_taps (job.taps_v, plan->v, plan->rows, 1, nc, 1.f);
  } else {
    job.taps2d = taps;
    job.n_taps2d = make_taps (taps, plan->weights, plan->rows, plan->cols, nc,
        scale);
  }

  Bands bands = { &job, scratch->data, per_thread };
  kconv_team_run (n_threads, run_bands, &bands);

  free (job.xmap);
  free (taps);
  return KCONV_OK;
}

KConvStatus
kconv_cpu_scratch_reserve (KConvCpuScratch * scratch, size_t n_floats)
{
  if (scratch->n_floats >= n_floats)
    return KCONV_OK;
  kconv_cpu_scratch_clear (scratch);
  size_t bytes = round_up (n_floats * sizeof (float), 64);
  scratch->data = aligned_alloc (64, bytes);
  if (!scratch->data)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for %zu "
        "bytes of scratch", bytes);
  memset (scratch->data, 0, bytes);
  scratch->n_floats = n_floats;
  return KCONV_OK;
}

KConvStatus
kconv_cpu_bands (const KConvPlan * plan, const KConvImage * src,
    int n_threads, KConvCpuScratch * scratch, size_t per_thread,
    uint8_t ** mem, int **xmap, KConvPartFunc fn, void *job)
{
  if (n_threads < 1)
    n_threads = 1;
  if (n_threads > src->height)
    n_threads = src->height;
  KConvStatus st = kconv_cpu_scratch_reserve (scratch,
      (per_thread * n_threads + sizeof (float) - 1) / sizeof (float));
  if (st != KCONV_OK)
    return st;
  *mem = (uint8_t *) scratch->data;
  *xmap = kconv_plan_border_map (plan, src->width);
  if (!*xmap)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for a "
        "border map");
  kconv_team_run (n_threads, fn, job);
  free (*xmap);
  *xmap = NULL;
  return KCONV_OK;
}

void
kconv_cpu_scratch_clear (KConvCpuScratch * scratch)
{
  free (scratch->data);
  scratch->data = NULL;
  scratch->n_floats = 0;
}

int
kconv_cpu_isa (void)
{
  const int allowed = kconv_tuning ().cpu_isa;
#ifdef KCONV_X86
  __builtin_cpu_init ();
  if (allowed >= KCONV_ISA_AVX512 && __builtin_cpu_supports ("avx512f")
      && __builtin_cpu_supports ("avx512bw"))
    return KCONV_ISA_AVX512;
  /* x86-64-v3, which the v3 loops are built for: AVX2 with FMA and BMI2
   * (every such CPU has the rest of it) */
  if (allowed >= KCONV_ISA_AVX2 && __builtin_cpu_supports ("avx2")
      && __builtin_cpu_supports ("fma") && __builtin_cpu_supports ("bmi2"))
    return KCONV_ISA_AVX2;
#endif
  (void) allowed;
  return KCONV_ISA_BASELINE;
}

int
kconv_cpu_avx512 (void)
{
  return kconv_cpu_isa () >= KCONV_ISA_AVX512;
}
