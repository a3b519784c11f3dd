/* kconv: boxes by running sums in integer lanes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A box is an exact kernel whose weights are all one value w (any shape,
 * 1xN and Nx1 among them): its sum is w times the sum S of the samples
 * under the window.  Each thread keeps the column sums of the rows under
 * the window (16-bit lanes: at most 121 * 255), updated by the row that
 * enters and the row that leaves; along the row, S is a difference of
 * prefix sums of those, scanned in registers channel by channel.  The cost
 * a pixel does not grow with the box: 121x121 costs what 7x7 does.
 *
 * The rule of kconv.h, for the boxes whose |w| divides the divisor d
 * (d' = d / |w|; others keep the float running sums of kconv-omp.c):
 *   round_half_up (+-|w| S / d) + offset = offset +- floor ((S + h) / d')
 * with h = floor (d' / 2) when the sum counts positive (w > 0 and the
 * divisor positive, or `absolute`), floor ((d' - 1) / 2) when negative.
 * Where S + h < 2^16 and the quotient stays below 1024 (every normalised
 * box to 16x16) the sums and the division run in 16-bit lanes, the
 * division by a magic number; larger boxes in 32-bit lanes, divided in
 * floats (u < 2^24 is exact there, the estimate is within 1 of the
 * quotient, and one step each way corrects it).  Prefix sums wrap around
 * their lanes' range; differences of them do not care.
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-cpu.h"
#include "kconv-error.h"
#include "kconv-lanes.h"
#include "kconv-team.h"

/* The quotient's bound in 16-bit lanes: with the offset held to +-1279,
 * offset +- q stays within a signed 16-bit lane and clamps the same. */
#define NARROW_MAX_QUOTIENT 1023
#define NARROW_MAX_OFFSET 1279
/* 32-bit lanes divide in floats, exact below this */
#define WIDE_LIMIT (1 << 24)

struct KConvCpuBox
{
  const KConvPlan *plan;
  int negative;                 /* the sum counts negative: offset - q */
  int d;                        /* d' above */
  int half;                     /* h above */
  int wide;                     /* 32-bit lanes */
  int exact22;                  /* ... where every S + h < 2^22 - 1 */
  int pow2;                     /* d' = 2^shift: a shift */
  int shift;
  KConvMagic magic;
  float inv_d;
  int32_t offset;               /* held to +-NARROW_MAX_OFFSET if narrow */
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BOX_X86 1
#define BOX_AVX2 __attribute__ ((target ("avx2")))
#define ALWAYS_INLINE inline __attribute__ ((always_inline))
#endif

KConvCpuBox *
kconv_cpu_box_new (const KConvPlan * plan)
{
#ifdef BOX_X86
  if (kconv_cpu_isa () < KCONV_ISA_AVX2 || !plan->exact)
    return NULL;
  const float w = plan->weights[0];
  for (int i = 1; i < plan->rows * plan->cols; i++)
    if (plan->weights[i] != w)
      return NULL;
  const double aw = fabs ((double) w);
  if (aw < 1.0 || aw != floor (aw) || fmod (plan->divisor, aw) != 0.0
      || plan->rows * 255 > 65535)
    return NULL;
  KConvCpuBox *b = calloc (1, sizeof *b);
  if (!b)
    return NULL;
  b->plan = plan;
  b->d = (int) (plan->divisor / aw);
  b->negative = !plan->absolute && ((w < 0.f) != (plan->negate != 0));
  b->half = b->negative ? (b->d - 1) / 2 : b->d / 2;
  b->offset = plan->ioffset;
  b->pow2 = (b->d & (b->d - 1)) == 0;
  b->shift = b->pow2 ? __builtin_ctz ((unsigned) b->d) : 0;
  b->inv_d = 1.0f / (float) b->d;
  const long u_max = 255L * plan->rows * plan->cols + b->half;
  b->wide = u_max > 65535 || u_max / b->d > NARROW_MAX_QUOTIENT
      || (!b->pow2 && !kconv_magic_find (b->d, (int) u_max, &b->magic));
  if (b->wide && u_max >= WIDE_LIMIT) {
    free (b);
    return NULL;
  }
  b->exact22 = u_max < (1 << 22) - 1;
  if (!b->wide)
    b->offset = b->offset > NARROW_MAX_OFFSET ? NARROW_MAX_OFFSET :
        b->offset < -NARROW_MAX_OFFSET ? -NARROW_MAX_OFFSET : b->offset;
  return b;
#else
  (void) plan;
  return NULL;
#endif
}

void
kconv_cpu_box_free (KConvCpuBox * box)
{
  free (box);
}

#ifdef BOX_X86

typedef struct
{
  const KConvCpuBox *box;
  const KConvPlan *plan;
  const KConvImage *src, *dst;
  int nc;
  uint32_t keep;
  int padded;                   /* width + cols - 1 pixels */
  size_t row_bytes;             /* width * nc */
  size_t n;                     /* padded * nc column sums */
  size_t col_len, prefix_len;   /* elements, with slack for whole registers */
  int *xmap;
  uint8_t *scratch;
  size_t per_thread;            /* bytes */
} BoxJob;

static size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

static const uint8_t *
source_row (const BoxJob * job, int l)
{
  int sy = kconv_border_index (job->plan->border, l, job->src->height);
  return sy < 0 ? NULL : job->src->data + sy * job->src->stride;
}

/* col += in - out over n samples (either row NULL: zeros) */
BOX_AVX2 static void
update_columns (uint16_t * restrict col, const uint8_t * in,
    const uint8_t * out, size_t n)
{
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i c = _mm256_loadu_si256 ((const __m256i *) (col + i));
    if (in)
      c = _mm256_add_epi16 (c, _mm256_cvtepu8_epi16 (_mm_loadu_si128
              ((const __m128i *) (in + i))));
    if (out)
      c = _mm256_sub_epi16 (c, _mm256_cvtepu8_epi16 (_mm_loadu_si128
              ((const __m128i *) (out + i))));
    _mm256_storeu_si256 ((__m256i *) (col + i), c);
  }
  for (; i < n; i++)
    col[i] = (uint16_t) (col[i] + (in ? in[i] : 0) - (out ? out[i] : 0));
}

/* The columns outside the frame, from the frame's by the border rule */
static void
border_columns (uint16_t * col, const BoxJob * job)
{
  const int nc = job->nc, ax = job->plan->ax;
  for (int x = 0; x < job->padded; x++) {
    if (x == ax)
      x = ax + job->src->width; /* the middle is done */
    if (x >= job->padded)
      break;
    uint16_t *to = col + (size_t) x * nc;
    const int from = job->xmap[x];
    for (int c = 0; c < nc; c++)
      to[c] = from < 0 ? 0 : col[(size_t) (ax + from) * nc + c];
  }
}

/* In-register inclusive scans of each channel (lanes nc apart), whole
 * register shifts of k lanes with zeros in: k below half a register, by
 * alignr across the two halves; from half on, the low half moved up. */
#define UP16_LOW(v, k) _mm256_alignr_epi8 ((v), \
    _mm256_permute2x128_si256 ((v), (v), 0x08), 16 - 2 * (k))
#define UP16_HIGH(v, k) _mm256_slli_si256 ( \
    _mm256_permute2x128_si256 ((v), (v), 0x08), 2 * ((k) - 8))
#define UP32_LOW(v, k) _mm256_alignr_epi8 ((v), \
    _mm256_permute2x128_si256 ((v), (v), 0x08), 16 - 4 * (k))
#define UP32_HIGH(v, k) _mm256_slli_si256 ( \
    _mm256_permute2x128_si256 ((v), (v), 0x08), 4 * ((k) - 4))

BOX_AVX2 static ALWAYS_INLINE __m256i
scan16 (__m256i v, int nc)
{
  if (nc == 1) {
    v = _mm256_add_epi16 (v, UP16_LOW (v, 1));
    v = _mm256_add_epi16 (v, UP16_LOW (v, 2));
    v = _mm256_add_epi16 (v, UP16_LOW (v, 4));
    v = _mm256_add_epi16 (v, UP16_HIGH (v, 8));
  } else if (nc == 2) {
    v = _mm256_add_epi16 (v, UP16_LOW (v, 2));
    v = _mm256_add_epi16 (v, UP16_LOW (v, 4));
    v = _mm256_add_epi16 (v, UP16_HIGH (v, 8));
  } else if (nc == 3) {
    v = _mm256_add_epi16 (v, UP16_LOW (v, 3));
    v = _mm256_add_epi16 (v, UP16_LOW (v, 6));
    v = _mm256_add_epi16 (v, UP16_HIGH (v, 12));
  } else {
    v = _mm256_add_epi16 (v, UP16_LOW (v, 4));
    v = _mm256_add_epi16 (v, UP16_HIGH (v, 8));
  }
  return v;
}

BOX_AVX2 static ALWAYS_INLINE __m256i
scan32 (__m256i v, int nc)
{
  if (nc == 1) {
    v = _mm256_add_epi32 (v, UP32_LOW (v, 1));
    v = _mm256_add_epi32 (v, UP32_LOW (v, 2));
    v = _mm256_add_epi32 (v, UP32_HIGH (v, 4));
  } else if (nc == 2) {
    v = _mm256_add_epi32 (v, UP32_LOW (v, 2));
    v = _mm256_add_epi32 (v, UP32_HIGH (v, 4));
  } else if (nc == 3) {
    v = _mm256_add_epi32 (v, UP32_LOW (v, 3));
    v = _mm256_add_epi32 (v, UP32_HIGH (v, 6));
  } else {
    v = _mm256_add_epi32 (v, UP32_HIGH (v, 4));
  }
  return v;
}

/* The carry from one register to the next: the totals so far of each
 * channel (T, channel c in place c), to which each register adds its own
 * (its last lane of each channel, X) and from which each register takes
 * its lanes' (C): one add on the chain from a register to the next.  Lane j
 * of register k is channel (lanes * k + j) mod nc; with 3 channels the
 * pattern repeats every 3 registers, so there are 3 of each shuffle. */
#define BOX_PERIOD 3

/* prefix[i + nc] = col[i] + col[i - nc] + ..., prefix[0 .. nc) = 0 */
BOX_AVX2 static ALWAYS_INLINE void
prefix16_nc (uint16_t * restrict prefix, const uint16_t * restrict col,
    size_t n, int nc)
{
  /* in 16-bit lanes T is 4 words repeated in every quarter (pshufb stays
   * within 128-bit halves); X is gathered from the last quarter */
  memset (prefix, 0, (size_t) nc * sizeof *prefix);
  __m256i totals = _mm256_setzero_si256 ();
  if (16 % nc == 0) {
    /* every register starts on channel 0: T kept in lane order (lane j
     * the total of channel j mod nc), so C = T */
    uint8_t lane[32];
    for (int j = 0; j < 16; j++) {
      const int last = 15 - (15 - j) % nc;
      lane[2 * j] = (uint8_t) (2 * (last - 12));
      lane[2 * j + 1] = (uint8_t) (2 * (last - 12) + 1);
    }
    const __m256i ctl = _mm256_loadu_si256 ((const __m256i *) lane);
    for (size_t i = 0; i < n; i += 16) {
      __m256i v = scan16 (_mm256_loadu_si256 ((const __m256i *) (col + i)),
          nc);
      const __m256i x = _mm256_shuffle_epi8 (_mm256_permute4x64_epi64 (v,
              0xff), ctl);
      v = _mm256_add_epi16 (v, totals);
      totals = _mm256_add_epi16 (totals, x);
      _mm256_storeu_si256 ((__m256i *) (prefix + nc + i), v);
    }
    return;
  }
  uint8_t take[BOX_PERIOD][32], add[BOX_PERIOD][32];
  for (int r = 0; r < BOX_PERIOD; r++)
    for (int j = 0; j < 16; j++) {
      const int c = (16 * r + j) % nc, pos = j % 4;
      take[r][2 * j] = (uint8_t) (2 * c);
      take[r][2 * j + 1] = (uint8_t) (2 * c + 1);
      const int last = 15 - (16 * r + 15 - pos + 4 * nc) % nc;
      add[r][2 * j] = pos < nc ? (uint8_t) (2 * (last - 12)) : 0x80;
      add[r][2 * j + 1] = pos < nc ? (uint8_t) (2 * (last - 12) + 1) : 0x80;
    }
  int r = 0;
  for (size_t i = 0; i < n; i += 16) {
    __m256i v = scan16 (_mm256_loadu_si256 ((const __m256i *) (col + i)),
        nc);
    const __m256i x = _mm256_shuffle_epi8 (_mm256_permute4x64_epi64 (v,
            0xff), _mm256_loadu_si256 ((const __m256i *) add[r]));
    v = _mm256_add_epi16 (v, _mm256_shuffle_epi8 (totals,
            _mm256_loadu_si256 ((const __m256i *) take[r])));
    totals = _mm256_add_epi16 (totals, x);
    _mm256_storeu_si256 ((__m256i *) (prefix + nc + i), v);
    r = r + 1 == BOX_PERIOD ? 0 : r + 1;
  }
}

BOX_AVX2 static ALWAYS_INLINE void
prefix32_nc (int32_t * restrict prefix, const uint16_t * restrict col,
    size_t n, int nc)
{
  memset (prefix, 0, (size_t) nc * sizeof *prefix);
  __m256i totals = _mm256_setzero_si256 ();
  if (8 % nc == 0) {
    int32_t lane[8];
    for (int j = 0; j < 8; j++)
      lane[j] = 7 - (7 - j) % nc;
    const __m256i ctl = _mm256_loadu_si256 ((const __m256i *) lane);
    for (size_t i = 0; i < n; i += 8) {
      __m256i v = scan32 (_mm256_cvtepu16_epi32 (_mm_loadu_si128
              ((const __m128i *) (col + i))), nc);
      const __m256i x = _mm256_permutevar8x32_epi32 (v, ctl);
      v = _mm256_add_epi32 (v, totals);
      totals = _mm256_add_epi32 (totals, x);
      _mm256_storeu_si256 ((__m256i *) (prefix + nc + i), v);
    }
    return;
  }
  int32_t take[BOX_PERIOD][8], add[BOX_PERIOD][8];
  for (int r = 0; r < BOX_PERIOD; r++)
    for (int j = 0; j < 8; j++) {
      take[r][j] = (8 * r + j) % nc;
      add[r][j] = j < nc ? 7 - (8 * r + 7 - j + 4 * nc) % nc : 0;
    }
  int r = 0;
  for (size_t i = 0; i < n; i += 8) {
    __m256i v = scan32 (_mm256_cvtepu16_epi32 (_mm_loadu_si128
            ((const __m128i *) (col + i))), nc);
    const __m256i x = _mm256_permutevar8x32_epi32 (v,
        _mm256_loadu_si256 ((const __m256i *) add[r]));
    v = _mm256_add_epi32 (v, _mm256_permutevar8x32_epi32 (totals,
            _mm256_loadu_si256 ((const __m256i *) take[r])));
    totals = _mm256_add_epi32 (totals, x);
    _mm256_storeu_si256 ((__m256i *) (prefix + nc + i), v);
    r = r + 1 == BOX_PERIOD ? 0 : r + 1;
  }
}

/* one copy a channel count, each with its shifts as constants */
BOX_AVX2 static void
prefix16 (uint16_t * prefix, const uint16_t * col, size_t n, int nc)
{
  switch (nc) {
    case 1:
      prefix16_nc (prefix, col, n, 1);
      break;
    case 2:
      prefix16_nc (prefix, col, n, 2);
      break;
    case 3:
      prefix16_nc (prefix, col, n, 3);
      break;
    default:
      prefix16_nc (prefix, col, n, 4);
      break;
  }
}

BOX_AVX2 static void
prefix32 (int32_t * prefix, const uint16_t * col, size_t n, int nc)
{
  switch (nc) {
    case 1:
      prefix32_nc (prefix, col, n, 1);
      break;
    case 2:
      prefix32_nc (prefix, col, n, 2);
      break;
    case 3:
      prefix32_nc (prefix, col, n, 3);
      break;
    default:
      prefix32_nc (prefix, col, n, 4);
      break;
  }
}

/* offset +- floor ((S + h) / d') of 16 window sums, as signed 16-bit */
BOX_AVX2 static ALWAYS_INLINE __m256i
finish16 (__m256i s, const KConvCpuBox * b, int negative, int pow2)
{
  const __m256i u = _mm256_add_epi16 (s, _mm256_set1_epi16 ((short) b->half));
  const __m256i q = pow2 ? _mm256_srl_epi16 (u,
      _mm_cvtsi32_si128 (b->shift)) : kconv_magic_divide (u, &b->magic);
  const __m256i off = _mm256_set1_epi16 ((short) b->offset);
  return negative ? _mm256_sub_epi16 (off, q) : _mm256_add_epi16 (off, q);
}

/* The same for 8 sums in 32-bit lanes (offset +- q clamps when packed).
 * Below 2^22 (exact: every box to 121x121 with a divisor to 2^13) the
 * quotient is (u + 1/2) / d' truncated: that lies at least 1 / 2d' from
 * an integer, and the float product is off by less, relative 2^-23.
 * Above, the estimate is corrected a step each way. */
BOX_AVX2 static ALWAYS_INLINE __m256i
finish32 (__m256i s, const KConvCpuBox * b, int negative, int exact22)
{
  __m256i q;
  if (exact22) {
    q = _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_add_ps
            (_mm256_cvtepi32_ps (s), _mm256_set1_ps (b->half + 0.5f)),
            _mm256_set1_ps (b->inv_d)));
  } else {
    const __m256i u = _mm256_add_epi32 (s, _mm256_set1_epi32 (b->half));
    const __m256i d = _mm256_set1_epi32 (b->d);
    q = _mm256_cvttps_epi32 (_mm256_mul_ps (_mm256_cvtepi32_ps (u),
            _mm256_set1_ps (b->inv_d)));
    const __m256i r = _mm256_sub_epi32 (u, _mm256_mullo_epi32 (q, d));
    /* r >= d: +1 */
    q = _mm256_sub_epi32 (q, _mm256_cmpgt_epi32 (r, _mm256_sub_epi32 (d,
                _mm256_set1_epi32 (1))));
    q = _mm256_add_epi32 (q, _mm256_cmpgt_epi32 (_mm256_setzero_si256 (), r));
  }
  const __m256i off = _mm256_set1_epi32 (b->offset);
  return negative ? _mm256_sub_epi32 (off, q) : _mm256_add_epi32 (off, q);
}

/* An output row from the prefix sums: window sums span apart */
BOX_AVX2 static ALWAYS_INLINE void
window_row16_as (uint8_t * drow, const uint8_t * srow,
    const uint16_t * prefix, size_t span, size_t row_bytes, uint32_t keep,
    const KConvCpuBox * b, int negative, int pow2)
{
  for (size_t c = 0; c * KCONV_CHUNK < row_bytes; c++) {
    const uint16_t *p = prefix + c * KCONV_CHUNK;
    const __m256i lo = finish16 (_mm256_sub_epi16 (_mm256_loadu_si256
            ((const __m256i *) (p + span)),
            _mm256_loadu_si256 ((const __m256i *) p)), b, negative, pow2);
    const __m256i hi = finish16 (_mm256_sub_epi16 (_mm256_loadu_si256
            ((const __m256i *) (p + span + 16)),
            _mm256_loadu_si256 ((const __m256i *) (p + 16))), b, negative,
        pow2);
    const __m256i v = _mm256_permute4x64_epi64 (_mm256_packus_epi16 (lo, hi),
        0xd8);
    const size_t rest = row_bytes - c * KCONV_CHUNK;
    kconv_put_chunk (drow, srow, c, rest < KCONV_CHUNK ? rest : KCONV_CHUNK,
        v, keep);
  }
}

BOX_AVX2 static ALWAYS_INLINE void
window_row32_as (uint8_t * drow, const uint8_t * srow,
    const int32_t * prefix, size_t span, size_t row_bytes, uint32_t keep,
    const KConvCpuBox * b, int negative, int exact22)
{
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  for (size_t c = 0; c * KCONV_CHUNK < row_bytes; c++) {
    __m256i q[4];
    for (int k = 0; k < 4; k++) {
      const int32_t *p = prefix + c * KCONV_CHUNK + 8 * k;
      q[k] = finish32 (_mm256_sub_epi32 (_mm256_loadu_si256
              ((const __m256i *) (p + span)),
              _mm256_loadu_si256 ((const __m256i *) p)), b, negative, exact22);
    }
    const __m256i v = _mm256_permutevar8x32_epi32 (_mm256_packus_epi16
        (_mm256_packs_epi32 (q[0], q[1]), _mm256_packs_epi32 (q[2], q[3])),
        order);
    const size_t rest = row_bytes - c * KCONV_CHUNK;
    kconv_put_chunk (drow, srow, c, rest < KCONV_CHUNK ? rest : KCONV_CHUNK,
        v, keep);
  }
}

/* one copy for each sign and kind of division, the choice out of the
 * loop */
BOX_AVX2 static void
window_row16 (uint8_t * drow, const uint8_t * srow, const uint16_t * prefix,
    size_t span, const BoxJob * job)
{
  const KConvCpuBox *b = job->box;
  const size_t n = job->row_bytes;
  if (b->negative && b->pow2)
    window_row16_as (drow, srow, prefix, span, n, job->keep, b, 1, 1);
  else if (b->negative)
    window_row16_as (drow, srow, prefix, span, n, job->keep, b, 1, 0);
  else if (b->pow2)
    window_row16_as (drow, srow, prefix, span, n, job->keep, b, 0, 1);
  else
    window_row16_as (drow, srow, prefix, span, n, job->keep, b, 0, 0);
}

BOX_AVX2 static void
window_row32 (uint8_t * drow, const uint8_t * srow, const int32_t * prefix,
    size_t span, const BoxJob * job)
{
  const KConvCpuBox *b = job->box;
  const size_t n = job->row_bytes;
  if (b->negative && b->exact22)
    window_row32_as (drow, srow, prefix, span, n, job->keep, b, 1, 1);
  else if (b->negative)
    window_row32_as (drow, srow, prefix, span, n, job->keep, b, 1, 0);
  else if (b->exact22)
    window_row32_as (drow, srow, prefix, span, n, job->keep, b, 0, 1);
  else
    window_row32_as (drow, srow, prefix, span, n, job->keep, b, 0, 0);
}

static void
run_band (const BoxJob * job, uint8_t * mem, int y0, int y1)
{
  const KConvPlan *plan = job->plan;
  const int nc = job->nc;
  uint16_t *col = (uint16_t *) mem;
  void *prefix = mem + round_up (job->col_len * sizeof (uint16_t), 64);
  uint16_t *middle = col + (size_t) plan->ax * nc;
  const size_t span = (size_t) plan->cols * nc;

  memset (col, 0, job->col_len * sizeof *col);
  for (int k = 0; k < plan->rows; k++)
    update_columns (middle, source_row (job, y0 - plan->ay + k), NULL,
        job->row_bytes);
  for (int y = y0; y < y1; y++) {
    if (y > y0) {
      const uint8_t *in = source_row (job, y - plan->ay + plan->rows - 1);
      const uint8_t *out = source_row (job, y - plan->ay - 1);
      if (in != out)
        update_columns (middle, in, out, job->row_bytes);
    }
    border_columns (col, job);
    uint8_t *drow = job->dst->data + (ptrdiff_t) y * job->dst->stride;
    const uint8_t *srow = job->src->data + (ptrdiff_t) y * job->src->stride;
    if (job->box->wide) {
      prefix32 (prefix, col, job->n, nc);
      window_row32 (drow, srow, prefix, span, job);
    } else {
      prefix16 (prefix, col, job->n, nc);
      window_row16 (drow, srow, prefix, span, job);
    }
  }
}

static void
run_bands (int t, int n, void *ctx)
{
  const BoxJob *job = ctx;
  int y0, y1;
  kconv_band (job->src->height, t, n, &y0, &y1);
  if (y0 < y1)
    run_band (job, job->scratch + job->per_thread * t, y0, y1);
}

KConvStatus
kconv_cpu_box_run (const KConvCpuBox * box, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep)
{
  if (!box || src->n_channels != src->pixel_stride || src->n_channels > 4)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "the box path takes "
        "1 to 4 bytes a pixel, every one a channel");
  const KConvPlan *plan = box->plan;
  BoxJob job = { 0 };
  job.box = box;
  job.plan = plan;
  job.src = src;
  job.dst = dst;
  job.nc = src->n_channels;
  job.keep = keep;
  job.padded = src->width + plan->cols - 1;
  job.row_bytes = (size_t) src->width * job.nc;
  job.n = (size_t) job.padded * job.nc;
  /* the scans read whole registers past n; the windows read a chunk past
   * the row's end, span on */
  job.col_len = round_up (job.n, 16) + 16;
  job.prefix_len = round_up (job.n + job.nc + KCONV_CHUNK, 16) + 16;
  job.per_thread = round_up (job.col_len * sizeof (uint16_t), 64)
      + round_up (job.prefix_len * (box->wide ? 4 : 2), 64);
  return kconv_cpu_bands (plan, src, n_threads, scratch, job.per_thread,
      &job.scratch, &job.xmap, run_bands, &job);
}

#else

KConvStatus
kconv_cpu_box_run (const KConvCpuBox * box, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep)
{
  (void) box, (void) n_threads, (void) scratch, (void) src, (void) dst;
  (void) keep;
  return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the box path needs "
      "an x86-64 build");
}

#endif
