/* kconv: small kernels on 16-bit words, in one pass that writes the words
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What kconv-fixed.c does for bytes, for samples of 9 to 16 bits, with the
 * finish done in registers and written straight into the frame:
 *
 * Exact kernels up to 7x7 (integer weights up to +-32767): a sample enters
 * lifted by -2^15 into a signed 16-bit lane, two taps are summed an
 * instruction into 32-bit lanes (pmaddwd), and 2^15 * sum w is added back:
 * exact while maxval * sum |w| stays under 2^30 (2^23 where the divisor is
 * not a power of two, which a float estimate divides and two steps
 * correct).
 *
 * Inexact kernels in floats: up to 9 taps in one 2D pass; separable ones
 * up to 7x7 as column sums into a row of floats, then the taps across it.
 * Within 1 of the exact value, as the float passes are.
 *
 * One pass over rows of 16-bit values beats the float passes' four (load,
 * taps, taps, finish) by 1.3-2x on 3x3 kernels (kconv-depth-bench,
 * kernels/PERFORMANCE.md).  Larger kernels stay with those.
 */
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include "kconv-cpu.h"
#include "kconv-error.h"
#include "kconv-team.h"

/* 7x7 at most, and an odd tap pairs with a zero one */
#define WORDS_MAX_SIDE 7
#define WORDS_MAX_TAPS (WORDS_MAX_SIDE * WORDS_MAX_SIDE + 1)
#define ALWAYS_INLINE inline __attribute__ ((always_inline))

/* What a ring row holds */
typedef enum
{
  WORDS_LIFTED,                 /* value - 2^15, int16 (exact kernels) */
  WORDS_FLOATS,                 /* floats (inexact, one 2D pass) */
  WORDS_PLAIN,                  /* values, uint16 (separable inexact) */
} KConvWordForm;

typedef struct
{
  int inexact;                  /* taps in floats (tap_f, bias) */
  int n_taps;                   /* even where exact */
  int tap_row[WORDS_MAX_TAPS], tap_col[WORDS_MAX_TAPS];
  int32_t tap_pair[WORDS_MAX_TAPS / 2]; /* w[2i + 1] << 16 | w[2i] */
  float tap_f[WORDS_MAX_TAPS];  /* the weight times the scale */
  float bias;
  /* separable inexact kernels: the taps above are the row factor's, these
   * the column factor's (the scale among them), summed first */
  int separable, n_v;
  int v_row[WORDS_MAX_SIDE];
  float v_f[WORDS_MAX_SIDE];
  int32_t lift;                 /* 2^15 * sum w: the samples' lift back */
  int negate, absolute;
  int divide;                   /* else d = 2^shift */
  int shift;
  int32_t half, divisor, two_d;
  float inv_two_d;
  int32_t offset, maxval;
} KConvWordTaps;

/* Destinations from this size on are written past the caches (streaming
 * stores; they leave no room for the frame in any cache anyway, and skip
 * reading each line before writing it): 4K GRAY16 gaussian 3x3, 1.32-1.52
 * ms against 1.66-1.99 (kernels/PERFORMANCE.md) */
#define WORDS_STREAM_BYTES (8u << 20)

/* The exact sums stay under this (see above) */
#define WORDS_SUM_LIMIT (1 << 30)
#define WORDS_FLOAT_LIMIT (1 << 23)

/* Inexact kernels of up to this many taps in one 2D pass of floats;
 * separable ones up to 7x7 in two (columns, then rows) */
#define WORDS_MAX_FLOAT_TAPS 9

/* The non-zero weights of the plan's matrix, times scale, and where they
 * sit (tap_row, tap_col); how many */
static int
nonzero_taps (const KConvPlan * plan, float scale, KConvWordTaps * w,
    float *weight)
{
  int n = 0;
  for (int r = 0; r < plan->rows; r++)
    for (int c = 0; c < plan->cols; c++) {
      const float v = plan->weights[r * plan->cols + c];
      if (v == 0.f)
        continue;
      w->tap_row[n] = r;
      w->tap_col[n] = c;
      weight[n++] = v * scale;
    }
  return n;
}

static int
float_taps (const KConvPlan * plan, KConvWordTaps * w)
{
  if (!isfinite (plan->bias) || !isfinite (plan->scale))
    return 0;
  w->inexact = 1;
  w->absolute = plan->absolute;
  w->bias = plan->bias;
  w->maxval = plan->maxval;
  if (plan->separable && plan->rows <= WORDS_MAX_SIDE
      && plan->cols <= WORDS_MAX_SIDE && plan->rows > 1 && plan->cols > 1) {
    /* (v carries the scale: weights[r][c] * scale == v[r] * h[c]) */
    w->separable = 1;
    for (int c = 0; c < plan->cols; c++)
      if (plan->h[c] != 0.f) {
        w->tap_row[w->n_taps] = 0;
        w->tap_col[w->n_taps] = c;
        w->tap_f[w->n_taps++] = plan->h[c];
      }
    for (int r = 0; r < plan->rows; r++)
      if (plan->v[r] != 0.f) {
        w->v_row[w->n_v] = r;
        w->v_f[w->n_v++] = plan->v[r];
      }
    return w->n_taps > 0 && w->n_v > 0;
  }
  if (plan->rows * plan->cols > WORDS_MAX_FLOAT_TAPS)
    return 0;
  w->n_taps = nonzero_taps (plan, plan->scale, w, w->tap_f);
  return 1;
}

static int
word_taps (const KConvPlan * plan, KConvWordTaps * w)
{
  memset (w, 0, sizeof *w);
  if (!plan->exact)
    return float_taps (plan, w);
  if (plan->rows > WORDS_MAX_SIDE || plan->cols > WORDS_MAX_SIDE)
    return 0;
  double sum_abs = 0.0;
  int64_t sum = 0;
  float wf[WORDS_MAX_TAPS];
  int16_t weight[WORDS_MAX_TAPS];
  w->n_taps = nonzero_taps (plan, 1.f, w, wf);
  for (int t = 0; t < w->n_taps; t++) {
    if (fabsf (wf[t]) > 32767.f || wf[t] != floorf (wf[t]))
      return 0;
    weight[t] = (int16_t) wf[t];
    sum_abs += fabsf (wf[t]);
    sum += (int64_t) wf[t];
  }
  if (w->n_taps == 0)
    return 0;
  if (w->n_taps % 2) {          /* the odd one out pairs with a zero tap */
    w->tap_row[w->n_taps] = w->tap_row[0];
    w->tap_col[w->n_taps] = w->tap_col[0];
    weight[w->n_taps++] = 0;
  }
  for (int t = 0; t < w->n_taps; t += 2)
    w->tap_pair[t / 2] = (int32_t) ((uint32_t) (uint16_t) weight[t + 1] << 16
        | (uint16_t) weight[t]);
  const int32_t d = plan->divisor;
  const double top = plan->maxval * sum_abs + d;
  w->divide = (d & (d - 1)) != 0;
  if (top >= (w->divide ? WORDS_FLOAT_LIMIT : WORDS_SUM_LIMIT))
    return 0;
  w->lift = (int32_t) (32768 * sum);
  w->negate = plan->negate;
  w->absolute = plan->absolute;
  w->shift = w->divide ? 0 : __builtin_ctz ((unsigned) d);
  w->half = d / 2;
  w->divisor = d;
  w->two_d = 2 * d;
  w->inv_two_d = 1.0f / (float) (2 * d);
  /* past +-2^30 every sum clamps alike, and the add cannot overflow */
  w->offset = plan->ioffset > WORDS_SUM_LIMIT ? WORDS_SUM_LIMIT :
      plan->ioffset < -WORDS_SUM_LIMIT ? -WORDS_SUM_LIMIT : plan->ioffset;
  w->maxval = plan->maxval;
  return 1;
}

int
kconv_cpu_words_takes (const KConvPlan * plan)
{
  KConvWordTaps w;
  return kconv_cpu_isa () >= KCONV_ISA_AVX2 && word_taps (plan, &w);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define WORDS_TARGET __attribute__ ((target ("avx512f,avx512bw")))
#define WORDS_NAME(x) words_##x##_avx512
#define VEC __m512i
#define V_(op) _mm512_##op
#define V_LANES 32
#define V_ZERO _mm512_setzero_si512 ()
#define V_LOAD(p) _mm512_loadu_si512 ((const void *) (p))
#define V_STORE(p, v) _mm512_storeu_si512 ((void *) (p), v)
#define V_OR(a, b) _mm512_or_si512 (a, b)
#define V_STREAM(p, v) _mm512_stream_si512 ((void *) (p), v)
#define V_GT(a, b) _mm512_maskz_mov_epi32 (_mm512_cmpgt_epi32_mask (a, b), \
    _mm512_set1_epi32 (-1))
#define V_KEEP(v, s, k) _mm512_mask_blend_epi16 (0x11111111u << (k), v, s)
#define VECF __m512
#define V_ABS_PS(a) _mm512_abs_ps (a)
#define V_ORDER(v) _mm512_permutexvar_epi64 (_mm512_setr_epi64 (0, 2, 4, 6, \
        1, 3, 5, 7), v)
#define V_WIDEN_PS(p) _mm512_cvtepi32_ps (_mm512_cvtepu16_epi32 ( \
        _mm256_loadu_si256 ((const __m256i *) (p))))
#define V_AND(a, b) _mm512_and_si512 (a, b)
#define V_WIDEN_LO_PS(v) _mm512_cvtepi32_ps (_mm512_cvtepu16_epi32 ( \
        _mm512_castsi512_si256 (v)))
#define V_WIDEN_HI_PS(v) _mm512_cvtepi32_ps (_mm512_cvtepu16_epi32 ( \
        _mm512_extracti64x4_epi64 (v, 1)))
#include "kconv-words-impl.h"
#undef WORDS_TARGET
#undef WORDS_NAME
#undef VEC
#undef V_
#undef V_LANES
#undef V_ZERO
#undef V_LOAD
#undef V_STORE
#undef V_OR
#undef V_STREAM
#undef V_GT
#undef V_KEEP
#undef VECF
#undef V_ABS_PS
#undef V_ORDER
#undef V_WIDEN_PS
#undef V_AND
#undef V_WIDEN_LO_PS
#undef V_WIDEN_HI_PS

#define WORDS_TARGET __attribute__ ((target ("avx2,fma")))
#define WORDS_NAME(x) words_##x##_avx2
#define VEC __m256i
#define V_(op) _mm256_##op
#define V_LANES 16
#define V_ZERO _mm256_setzero_si256 ()
#define V_LOAD(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define V_STORE(p, v) _mm256_storeu_si256 ((__m256i *) (p), v)
#define V_OR(a, b) _mm256_or_si256 (a, b)
#define V_STREAM(p, v) _mm256_stream_si256 ((__m256i *) (p), v)
#define V_GT(a, b) _mm256_cmpgt_epi32 (a, b)
#define V_KEEP(v, s, k) _mm256_blendv_epi8 (v, s, \
    _mm256_set1_epi64x ((long long) (0xffffull << (16 * (k)))))
#define VECF __m256
#define V_ABS_PS(a) _mm256_andnot_ps (_mm256_set1_ps (-0.f), a)
#define V_ORDER(v) _mm256_permute4x64_epi64 (v, 0xd8)
#define V_WIDEN_PS(p) _mm256_cvtepi32_ps (_mm256_cvtepu16_epi32 ( \
        _mm_loadu_si128 ((const __m128i *) (p))))
#define V_AND(a, b) _mm256_and_si256 (a, b)
#define V_WIDEN_LO_PS(v) _mm256_cvtepi32_ps (_mm256_cvtepu16_epi32 ( \
        _mm256_castsi256_si128 (v)))
#define V_WIDEN_HI_PS(v) _mm256_cvtepi32_ps (_mm256_cvtepu16_epi32 ( \
        _mm256_extracti128_si256 (v, 1)))
#include "kconv-words-impl.h"

typedef struct
{
  const KConvPlan *plan;
  const KConvImage *src, *dst;
  KConvWordTaps w;
  int nc, keep, avx512;
  uint16_t mask;
  size_t row_words;             /* width * nc */
  size_t padded_words;          /* a ring row: the row, its border, slack */
  KConvWordForm form;
  int stream;                   /* outputs stored past the caches */
  int direct;                   /* separable: column sums straight from
                                 * the frame's rows, no ring */
  size_t elem_size;             /* of a ring row's element: 2 or 4 */
  size_t sum_words;             /* column sums made a row (separable) */
  int *xmap;
  uint8_t *scratch;
  size_t per_thread;            /* bytes */
} WordsJob;

static size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* The value of word c of pixel x of a source row */
static uint16_t
value_at (const WordsJob * job, const uint8_t * srow, int x, int c)
{
  uint16_t v;
  memcpy (&v, srow + ((size_t) x * job->nc + c) * 2, sizeof v);
  v = job->src->big_endian ? __builtin_bswap16 (v) : v;
  return (v >> job->src->shift) & job->mask;
}

/* Element i of a ring row: value v in the row's form */
static void
put_value (void *row, size_t i, uint16_t v, KConvWordForm form)
{
  if (form == WORDS_FLOATS)
    ((float *) row)[i] = (float) v;
  else
    ((uint16_t *) row)[i] = form == WORDS_LIFTED ? v ^ 0x8000 : v;
}

/* Source row `logical_row` as the ring holds it, with the horizontal
 * border around it */
static void
pad_row (void *out, const WordsJob * job, int logical_row)
{
  const KConvImage *im = job->src;
  const int nc = job->nc, ax = job->plan->ax;
  const KConvWordForm form = job->form;
  const int padded = im->width + job->plan->cols - 1;
  const int sy = kconv_border_index (job->plan->border, logical_row,
      im->height);
  if (sy < 0) {
    for (size_t i = 0; i < (size_t) padded * nc; i++)
      put_value (out, i, 0, form);
    return;
  }
  const uint8_t *srow = im->data + (ptrdiff_t) sy * im->stride;
  /* the next row is the next one read: in the cache before it is */
  const int ny = kconv_border_index (job->plan->border, logical_row + 1,
      im->height);
  const uint8_t *next = ny < 0 ? NULL : im->data + (ptrdiff_t) ny * im->stride;
  void *middle = (uint8_t *) out + (size_t) ax * nc * job->elem_size;
  if (job->avx512)
    words_values_avx512 (middle, srow, job->row_words, im->shift, job->mask,
        im->big_endian, form, next);
  else
    words_values_avx2 (middle, srow, job->row_words, im->shift, job->mask,
        im->big_endian, form, next);
  for (int x = 0; x < padded; x++) {
    if (x == ax)
      x += im->width;           /* the middle is done */
    if (x >= padded)
      break;
    for (int c = 0; c < nc; c++)
      put_value (out, (size_t) x * nc + c, job->xmap[x] < 0 ? 0 :
          value_at (job, srow, job->xmap[x], c), form);
  }
}

static int
slot_of (int l, int rows)
{
  return ((l % rows) + rows) % rows;
}

/* A separable kernel's column sums for output row y straight from the
 * frame's rows (`zero` stands for a row outside a constant border), the
 * border's columns one at a time */
static void
direct_sums (const WordsJob * job, float *sums, const uint8_t * zero, int y)
{
  const KConvPlan *plan = job->plan;
  const KConvImage *im = job->src;
  const int nc = job->nc, padded = im->width + plan->cols - 1;
  const uint8_t *by_row[WORDS_MAX_SIDE];
  for (int r = 0; r < job->w.n_v; r++) {
    const int sy = kconv_border_index (plan->border, y - plan->ay +
        job->w.v_row[r], im->height);
    by_row[r] = sy < 0 ? zero : im->data + (ptrdiff_t) sy *im->stride;
  }
  float *middle = sums + (size_t) plan->ax * nc;
  const int ny = kconv_border_index (plan->border, y - plan->ay +
      job->w.v_row[job->w.n_v - 1] + 1, im->height);
  const uint8_t *next = ny < 0 ? zero : im->data + (ptrdiff_t) ny * im->stride;
  if (job->avx512)
    words_column_sums_direct_avx512 (middle, by_row, &job->w, job->row_words,
        im->shift, job->mask, next);
  else
    words_column_sums_direct_avx2 (middle, by_row, &job->w, job->row_words,
        im->shift, job->mask, next);
  for (int x = 0; x < padded; x++) {
    if (x == plan->ax)
      x += im->width;           /* the middle is done */
    if (x >= padded)
      break;
    for (int c = 0; c < nc; c++) {
      float a = 0.f;
      for (int r = 0; r < job->w.n_v; r++)
        a = fmaf (job->w.v_f[r], job->xmap[x] < 0 ? 0.f :
            (float) value_at (job, by_row[r], job->xmap[x], c), a);
      sums[(size_t) x * nc + c] = a;
    }
  }
}

/* A band of output rows; the ring holds the last rows source rows (or,
 * direct, its first row is a row of zeros). */
static void
run_band (const WordsJob * job, uint8_t * ring, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const int rows = plan->rows;
  const size_t row_bytes = job->padded_words * job->elem_size;
  const void *src[WORDS_MAX_TAPS];
  /* separable: the column sums, one padded row of floats after the ring */
  float *sums = (float *) (ring + rows * row_bytes);
  if (job->direct)
    memset (ring, 0, row_bytes);
  for (int y = y0; y < y1; y++) {
    const int first = y - plan->ay;
    const int start = y == y0 ? first : first + rows - 1;
    for (int l = start; l < first + rows && !job->direct; l++)
      pad_row (ring + slot_of (l, rows) * row_bytes, job, l);
    if (job->direct)
      direct_sums (job, sums, ring, y);
    else if (job->w.separable) {
      const uint16_t *by_row[WORDS_MAX_SIDE];
      for (int r = 0; r < job->w.n_v; r++)
        by_row[r] = (const uint16_t *) (ring + slot_of (first +
                job->w.v_row[r], rows) * row_bytes);
      if (job->avx512)
        words_column_sums_avx512 (sums, by_row, &job->w, job->sum_words);
      else
        words_column_sums_avx2 (sums, by_row, &job->w, job->sum_words);
    }
    for (int t = 0; t < job->w.n_taps; t++)
      src[t] = job->w.separable ?
          (const void *) (sums + (size_t) job->w.tap_col[t] * job->nc) :
          ring + slot_of (first + job->w.tap_row[t], rows) * row_bytes +
          (size_t) job->w.tap_col[t] * job->nc * job->elem_size;
    uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride;
    const uint8_t *srow = job->src->data + (ptrdiff_t) y * job->src->stride;
    if (job->avx512)
      words_row_avx512 (drow, srow, src, job->row_words, &job->w,
          job->dst->shift, job->dst->big_endian, job->keep, job->stream);
    else
      words_row_avx2 (drow, srow, src, job->row_words, &job->w,
          job->dst->shift, job->dst->big_endian, job->keep, job->stream);
  }
  if (job->stream)
    _mm_sfence ();              /* the streamed stores seen before the join */
}

static void
run_bands (int t, int n, void *ctx)
{
  const WordsJob *job = ctx;
  int y0, y1;
  kconv_band (job->src->height, t, n, &y0, &y1);
  if (y0 < y1)
    run_band (job, job->scratch + job->per_thread * t, y0, y1);
}

KConvStatus
kconv_cpu_words_run (const KConvPlan * plan, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    int keep)
{
  WordsJob job = { 0 };
  if (kconv_cpu_isa () < KCONV_ISA_AVX2 || !word_taps (plan, &job.w))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "the integer path for "
        "16-bit words does not take this kernel");
  if (src->pixel_stride != 2 * src->n_channels)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "the integer path for "
        "16-bit words takes pixels of channels only");
  job.plan = plan;
  job.src = src;
  job.dst = dst;
  job.nc = src->n_channels;
  job.keep = keep;
  job.avx512 = kconv_cpu_avx512 ();
  job.mask = (uint16_t) ((1u << src->depth) - 1);
  job.row_words = (size_t) src->width * job.nc;
  /* the last vector of a row reads up to 32 words past it */
  job.padded_words = round_up ((size_t) (src->width + plan->cols - 1) *
      job.nc + 32, 32);
  job.stream = dst->stride > 0
      && (size_t) dst->stride * dst->height >= WORDS_STREAM_BYTES;
  job.form = !job.w.inexact ? WORDS_LIFTED : job.w.separable ? WORDS_PLAIN :
      WORDS_FLOATS;
  /* the ring's copy costs a third of the pass where rows come from
   * memory: 4K GRAY16 gaussian 3x3 (kernels/PERFORMANCE.md) */
  job.direct = job.form == WORDS_PLAIN && !src->big_endian;
  job.elem_size = job.form == WORDS_FLOATS ? sizeof (float) : sizeof (int16_t);
  /* column sums across the padded row, in whole steps of 32 */
  job.sum_words = round_up (round_up (job.row_words, 32) +
      (size_t) (plan->cols - 1) * job.nc, 32);
  job.per_thread = (size_t) plan->rows * job.padded_words * job.elem_size +
      (job.w.separable ? job.padded_words * sizeof (float) : 0);
  return kconv_cpu_bands (plan, src, n_threads, scratch, job.per_thread,
      &job.scratch, &job.xmap, run_bands, &job);
}

#else

KConvStatus
kconv_cpu_words_run (const KConvPlan * plan, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    int keep)
{
  return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the integer path for "
      "16-bit words needs x86-64");
}

#endif
