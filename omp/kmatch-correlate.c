/* kconv: the sums correlation methods (ssd, ncc, zncc) are made of, on the CPU
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The heavy part is the cross-correlation sum F T at every position:
 * through the FFT (kmatch-fft.c) where the template is large, else
 * directly, 32-bit sums a lane, one output a lane:
 *  - AVX-512 VNNI: one vpdpbusd multiplies 64 pairs of bytes and adds them
 *    in fours: the frame's bytes go in as signed (F - 128, so that a
 *    template byte up to 255 can be the unsigned side) and 128 sum T is
 *    added back at the end;
 *  - AVX2: one vpmaddwd multiplies 16 pairs of 16-bit samples and adds them
 *    in twos;
 * the frame's rows made once a search into words of 4 (or 2) samples
 * from each x on, so that a load at x + tap gives every lane its own.  A
 * position's 32-bit sum takes at most 32768 products (<= 65025 each)
 * before it is added into 64 bits, so every sum is exact.  Elsewhere, and
 * for the sums of squares under a mask, a plain loop the compiler
 * vectorises does the same in 32-bit parts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch-cpu.h"
#include "kmatch-sad.h"
#include "kconv-team.h"
#include "kconv-cpu.h"
#include "kconv-tuning.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_LANES 1
#endif

/* The time of a point of a transform (through_fft) in products of the
 * AVX2 loop, measured on 1080p photographs with 16x16 and 64x64 templates
 * (2.7e-11 s a product on two cores, 2.1e-10 s a point); the VNNI loop
 * takes about half the AVX2 loop's time a product, the plain loop 20
 * times it. */
#define KMATCH_FFT_COST 8.0
static const double direct_cost[] = { 20.0, 1.0, 0.5 };

/* most products a 32-bit sum takes before it is added into 64 bits (of
 * bytes; of 16-bit values times bytes, each under 2^24) */
#define PART_TAPS 32768
#define PART_TAPS_16 256

enum
{ PLAIN, AVX2_PAIRS, VNNI_QUADS };

typedef struct
{
  const KMatchCorrelation *q;
  uint64_t *out;
  int path;
  /* AVX2 and VNNI: each plane's rows as 32-bit words, word x holding
   * samples x .. x + span - 1, ws words a row; the kernel's rows as words
   * of span taps, nk a row */
  int span, nk;
  uint32_t *words, *kwords;
  ptrdiff_t ws;
  uint64_t offset;              /* what the words' offset takes off each sum */
  uint32_t *acc;                /* the plain path: mw sums a part */
} CorrelateJob;

/* Rows y0 .. y1 - 1 of the output, plain: 32-bit sums over parts of the
 * kernel, added into 64 bits. */
KMATCH_MULTIVERSION static void
rows_plain (const KMatchCorrelation * q, int y0, int y1, uint32_t * acc,
    uint64_t * out)
{
  const size_t plane = (size_t) q->rw * q->rh;
  for (int y = y0; y < y1; y++) {
    uint64_t *o = out + (size_t) y * q->mw;
    memset (o, 0, sizeof *o * (size_t) q->mw);
    memset (acc, 0, sizeof *acc * (size_t) q->mw);
    int taps = 0;
    for (int c = 0; c < q->ch; c++)
      for (int j = 0; j < q->th; j++)
        for (int i = 0; i < q->tw; i++) {
          const uint32_t k = q->kernel[(size_t) c * q->tw * q->th +
              (size_t) j * q->tw + i];
          if (!k)
            continue;
          const size_t at = c * plane + (size_t) (y + j) * q->rw + i;
          if (q->planes16) {
            const uint16_t *restrict f = q->planes16 + at;
            for (int x = 0; x < q->mw; x++)
              acc[x] += f[x] * k;
          } else if (q->squares) {
            const uint8_t *restrict f = q->planes + at;
            for (int x = 0; x < q->mw; x++)
              acc[x] += (uint32_t) (uint16_t) (f[x] * f[x]);
          } else {
            const uint8_t *restrict f = q->planes + at;
            for (int x = 0; x < q->mw; x++)
              acc[x] += (uint32_t) (uint16_t) (f[x] * k);
          }
          if (++taps == (q->planes16 ? PART_TAPS_16 : PART_TAPS)) {
            for (int x = 0; x < q->mw; x++)
              o[x] += acc[x];
            memset (acc, 0, sizeof *acc * (size_t) q->mw);
            taps = 0;
          }
        }
    for (int x = 0; x < q->mw; x++)
      o[x] += acc[x];
  }
}

#ifdef HAVE_LANES
/* One row's 32 outputs from x0 on: for every kernel word, four vectors of
 * 8 (AVX2) or 16 (AVX-512) lanes, a load at x0 + span * t each; 32-bit
 * parts added into sums. */
#define ROW_BLOCK(VEC, ZERO, LOADU, STOREU, SET1, MAC, LANES) \
  do { \
    int64_t sums[4 * LANES] = { 0 }; \
    int32_t part[4 * LANES]; \
    VEC a0 = ZERO (), a1 = a0, a2 = a0, a3 = a0; \
    int taps = 0; \
    for (int c = 0; c < q->ch; c++) \
      for (int j = 0; j < q->th; j++) { \
        const uint32_t *w = job->words + c * plane_words + \
            (size_t) (y + j) * job->ws + x0; \
        const uint32_t *k = job->kwords + ((size_t) c * q->th + j) * nk; \
        for (int t = 0; t < nk; t++) { \
          if (!k[t]) \
            continue; \
          const VEC kk = SET1 ((int) k[t]); \
          const uint32_t *p = w + span * t; \
          a0 = MAC (a0, LOADU ((const void *) p), kk); \
          a1 = MAC (a1, LOADU ((const void *) (p + LANES)), kk); \
          a2 = MAC (a2, LOADU ((const void *) (p + 2 * LANES)), kk); \
          a3 = MAC (a3, LOADU ((const void *) (p + 3 * LANES)), kk); \
          if ((taps += span) >= PART_TAPS) { \
            STOREU ((void *) part, a0); \
            STOREU ((void *) (part + LANES), a1); \
            STOREU ((void *) (part + 2 * LANES), a2); \
            STOREU ((void *) (part + 3 * LANES), a3); \
            for (int x = 0; x < 4 * LANES; x++) \
              sums[x] += part[x]; \
            a0 = a1 = a2 = a3 = ZERO (); \
            taps = 0; \
          } \
        } \
      } \
    STOREU ((void *) part, a0); \
    STOREU ((void *) (part + LANES), a1); \
    STOREU ((void *) (part + 2 * LANES), a2); \
    STOREU ((void *) (part + 3 * LANES), a3); \
    const int n = q->mw - x0 < 4 * LANES ? q->mw - x0 : 4 * LANES; \
    for (int x = 0; x < n; x++) \
      o[x0 + x] = (uint64_t) (sums[x] + part[x] + (int64_t) job->offset); \
  } while (0)

static inline __attribute__((target ("avx2")))
    __m256i
mac_pairs (__m256i acc, __m256i f, __m256i k)
{
  return _mm256_add_epi32 (acc, _mm256_madd_epi16 (f, k));
}

__attribute__((target ("avx2")))
     static void rows_avx2 (const CorrelateJob * job, int y0, int y1)
{
  const KMatchCorrelation *q = job->q;
  const int nk = job->nk, span = job->span;
  const size_t plane_words = (size_t) job->ws * q->rh;
  for (int y = y0; y < y1; y++) {
    uint64_t *o = job->out + (size_t) y * q->mw;
    for (int x0 = 0; x0 < q->mw; x0 += 32)
      ROW_BLOCK (__m256i, _mm256_setzero_si256, _mm256_loadu_si256,
          _mm256_storeu_si256, _mm256_set1_epi32, mac_pairs, 8);
  }
}

static inline __attribute__((target ("avx512f,avx512bw,avx512vnni")))
    __m512i
mac_quads (__m512i acc, __m512i f, __m512i k)
{
  return _mm512_dpbusd_epi32 (acc, k, f);
}

__attribute__((target ("avx512f,avx512bw,avx512vnni")))
     static void rows_vnni (const CorrelateJob * job, int y0, int y1)
{
  const KMatchCorrelation *q = job->q;
  const int nk = job->nk, span = job->span;
  const size_t plane_words = (size_t) job->ws * q->rh;
  for (int y = y0; y < y1; y++) {
    uint64_t *o = job->out + (size_t) y * q->mw;
    for (int x0 = 0; x0 < q->mw; x0 += 64)
      ROW_BLOCK (__m512i, _mm512_setzero_si512, _mm512_loadu_si512,
          _mm512_storeu_si512, _mm512_set1_epi32, mac_quads, 16);
  }
}

/* The direct path this CPU takes (kconv_cpu_isa: a tuning knob may hold
 * it to AVX2 or less) */
static int
lanes_path (void)
{
  __builtin_cpu_init ();
  const int isa = kconv_cpu_isa ();
  if (isa >= KCONV_ISA_AVX512 && __builtin_cpu_supports ("avx512vnni"))
    return VNNI_QUADS;
  return isa >= KCONV_ISA_AVX2 ? AVX2_PAIRS : PLAIN;
}
#else
static int
lanes_path (void)
{
  return PLAIN;
}
#endif

/* Row r of the planes as words: samples x .. x + span - 1 (0 past the
 * row), bytes minus 128 in fours or 16-bit values in twos */
static void
words_row (uint32_t * w, const uint8_t * f, int rw, ptrdiff_t ws, int span)
{
  for (ptrdiff_t x = 0; x < ws; x++) {
    uint32_t v = 0;
    if (span == 4) {
      for (int b = 0; b < 4; b++)
        v |= (uint32_t) (uint8_t) ((x + b < rw ? f[x + b] : 0) ^ 0x80) <<
            (8 * b);
    } else {
      v = (x < rw ? f[x] : 0) | (uint32_t) (x + 1 < rw ? f[x + 1] : 0) << 16;
    }
    w[x] = v;
  }
}

static void
words_part (int t, int n, void *ctx)
{
  CorrelateJob *job = ctx;
  const KMatchCorrelation *q = job->q;
  int r0, r1;
  kconv_band (q->ch * q->rh, t, n, &r0, &r1);
  for (int r = r0; r < r1; r++)
    words_row (job->words + (size_t) r * job->ws,
        q->planes + (size_t) r * q->rw, q->rw, job->ws, job->span);
}

/* interleaved blocks of 4 rows: every thread gets its share */
static void
correlate_part (int t, int n, void *ctx)
{
  CorrelateJob *job = ctx;
  const KMatchCorrelation *q = job->q;
  for (int y0 = 4 * t; y0 < q->mh; y0 += 4 * n) {
    const int y1 = y0 + 4 < q->mh ? y0 + 4 : q->mh;
#ifdef HAVE_LANES
    if (job->path == VNNI_QUADS) {
      rows_vnni (job, y0, y1);
      continue;
    }
    if (job->path == AVX2_PAIRS) {
      rows_avx2 (job, y0, y1);
      continue;
    }
#endif
    rows_plain (q, y0, y1, job->acc + (size_t) t * q->mw, job->out);
  }
}

#ifndef KCONV_HAVE_FFTW
KMatchFft *
kmatch_fft_new (void)
{
  return NULL;
}

void
kmatch_fft_free (KMatchFft * f)
{
  (void) f;
}

int
kmatch_fft_correlate (KMatchFft * f, const KMatchCorrelation * q,
    uint64_t * out)
{
  (void) f;
  (void) q;
  (void) out;
  return -1;
}
#endif

/* Whether the FFT is the faster way: its tiles' transforms (one forward a
 * channel, one back) against every product of the direct loops, in time
 * units measured on the build machine (PERFORMANCE.md) */
static int
through_fft (const KMatchCorrelation * q, int path)
{
  const char *forced = kconv_tuning ().cpu_strategy;
  if (!q->fft || !strcmp (forced, "direct"))
    return 0;
  if (!strcmp (forced, "fft"))
    return 1;
  const double direct = (double) q->mw * q->mh * q->tw * q->th * q->ch *
      direct_cost[path];
  const double side = 4.0 * (q->tw > q->th ? q->tw : q->th);
  const double n = side < 128 ? 128 : side;
  const double outputs = (n - q->tw + 1) * (n - q->th + 1);
  const double tiles = (double) q->mw * q->mh / outputs;
  const double fft = tiles * (q->ch + 1) * n * n * log2 (n * n) *
      KMATCH_FFT_COST;
  return fft < direct;
}

/* The kernel's rows as words of span taps (0 past the row), and the sum
 * the words' offset takes off */
static void
kernel_words (CorrelateJob * job)
{
  const KMatchCorrelation *q = job->q;
  uint64_t ksum = 0;
  for (int c = 0; c < q->ch; c++)
    for (int j = 0; j < q->th; j++)
      for (int i = 0; i < q->tw; i++) {
        const uint8_t k = q->kernel[((size_t) c * q->th + j) * q->tw + i];
        ksum += k;
        job->kwords[((size_t) c * q->th + j) * job->nk + i / job->span] |=
            (uint32_t) k << (32 / job->span * (i % job->span));
      }
  job->offset = job->span == 4 ? 128 * ksum : 0;
}

int
kmatch_cpu_correlate (const KMatchCorrelation * q, uint64_t * out)
{
  CorrelateJob job = { q, out, q->squares
        || q->planes16 ? PLAIN : lanes_path (), 0, 0,
    NULL, NULL, 0, 0, NULL
  };
  if (through_fft (q, job.path))
    return kmatch_fft_correlate (q->fft, q, out);
  /* a small correlation is not worth waking threads for */
  const double products = (double) q->mw * q->mh * q->tw * q->th * q->ch;
  const int parts = q->n_threads > 1 && products >= (1 << 22) ?
      q->n_threads : 1;
  if (job.path != PLAIN) {
    /* words for every load of the last block of 64 lanes (its outputs
     * past mw are dropped) */
    job.span = job.path == VNNI_QUADS ? 4 : 2;
    job.nk = (q->tw + job.span - 1) / job.span;
    job.ws = (q->rw + 64 + 16 + 15) & ~(ptrdiff_t) 15;
    job.words = malloc (sizeof *job.words * (size_t) job.ws * q->rh * q->ch);
    job.kwords = calloc ((size_t) q->ch * q->th * job.nk, sizeof *job.kwords);
    if (!job.words || !job.kwords) {
      free (job.words);
      free (job.kwords);
      return -1;
    }
    kernel_words (&job);
    kconv_team_run (parts, words_part, &job);
  } else if (!(job.acc = malloc (sizeof *job.acc * (size_t) q->mw * parts))) {
    return -1;
  }
  kconv_team_run (parts, correlate_part, &job);
  free (job.words);
  free (job.kwords);
  free (job.acc);
  return 0;
}
