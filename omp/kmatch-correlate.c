/* kconv: the sums correlation methods (ssd, ncc, zncc) are made of, on the CPU
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The heavy part is the cross-correlation sum F T at every position.  On
 * processors with AVX-512 VNNI one vpdpbusd multiplies 64 pairs of bytes
 * and adds them in fours into 16 32-bit sums: the frame's bytes go in as
 * signed (F - 128, so that a template byte up to 255 can be the unsigned
 * side) and 128 * sum T is added back at the end.  Each position's 32-bit
 * sums take at most 65536 products (|F - 128| T <= 32640 each) before they
 * are added into 64 bits, so every sum is exact.  Elsewhere, and for the
 * sums of squares under a mask, a plain loop the compiler vectorises does
 * the same in 32-bit parts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch-cpu.h"
#include "kmatch-sad.h"
#include "kconv-team.h"
#include "kconv-cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_VNNI_PATH 1
#endif

/* the time of a product in the direct loops and of a point of a
 * transform, in the same units (through_fft) */
#define KMATCH_DIRECT_COST 1.0
#define KMATCH_FFT_COST 0.0

/* most products a 32-bit sum takes before it is added into 64 bits */
#define PART_TAPS 65536

typedef struct
{
  const KMatchCorrelation *q;
  uint64_t *out;
  /* the VNNI path: each plane's rows as 32-bit words, word x holding
   * bytes x .. x + 3 minus 128, qs words a row; the kernel's rows as
   * words of four taps, nq a row */
  uint32_t *words, *kwords;
  ptrdiff_t qs;
  int nq;
  uint64_t offset;              /* 128 * the kernel's sum */
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
          const uint8_t *restrict f = q->planes + c * plane +
              (size_t) (y + j) * q->rw + i;
          if (q->squares)
            for (int x = 0; x < q->mw; x++)
              acc[x] += (uint32_t) (uint16_t) (f[x] * f[x]);
          else
            for (int x = 0; x < q->mw; x++)
              acc[x] += (uint32_t) (uint16_t) (f[x] * k);
          if (++taps == PART_TAPS) {
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

#ifdef HAVE_VNNI_PATH
__attribute__((target ("avx512f,avx512bw,avx512vnni")))
     static void rows_vnni (const CorrelateJob * job, int y0, int y1)
{
  const KMatchCorrelation *q = job->q;
  const int nq = job->nq;
  const size_t plane_words = (size_t) job->qs * q->rh;
  for (int y = y0; y < y1; y++) {
    uint64_t *o = job->out + (size_t) y * q->mw;
    for (int x0 = 0; x0 < q->mw; x0 += 64) {
      int64_t sums[64] = { 0 };
      __m512i a0 = _mm512_setzero_si512 (), a1 = a0, a2 = a0, a3 = a0;
      int taps = 0;
      for (int c = 0; c < q->ch; c++)
        for (int j = 0; j < q->th; j++) {
          const uint32_t *w = job->words + c * plane_words +
              (size_t) (y + j) * job->qs + x0;
          const uint32_t *k = job->kwords + ((size_t) c * q->th + j) * nq;
          for (int t = 0; t < nq; t++) {
            if (!k[t])
              continue;
            const __m512i kk = _mm512_set1_epi32 ((int) k[t]);
            const uint32_t *p = w + 4 * t;
            a0 = _mm512_dpbusd_epi32 (a0, kk, _mm512_loadu_si512 (p));
            a1 = _mm512_dpbusd_epi32 (a1, kk, _mm512_loadu_si512 (p + 16));
            a2 = _mm512_dpbusd_epi32 (a2, kk, _mm512_loadu_si512 (p + 32));
            a3 = _mm512_dpbusd_epi32 (a3, kk, _mm512_loadu_si512 (p + 48));
            taps += 4;
            if (taps >= PART_TAPS) {
              int32_t part[64];
              _mm512_storeu_si512 (part, a0);
              _mm512_storeu_si512 (part + 16, a1);
              _mm512_storeu_si512 (part + 32, a2);
              _mm512_storeu_si512 (part + 48, a3);
              for (int x = 0; x < 64; x++)
                sums[x] += part[x];
              a0 = a1 = a2 = a3 = _mm512_setzero_si512 ();
              taps = 0;
            }
          }
        }
      int32_t part[64];
      _mm512_storeu_si512 (part, a0);
      _mm512_storeu_si512 (part + 16, a1);
      _mm512_storeu_si512 (part + 32, a2);
      _mm512_storeu_si512 (part + 48, a3);
      const int n = q->mw - x0 < 64 ? q->mw - x0 : 64;
      for (int x = 0; x < n; x++)
        o[x0 + x] = (uint64_t) (sums[x] + part[x] + (int64_t) job->offset);
    }
  }
}

/* Row r of plane c as words of four bytes minus 128 (0 past the row) */
static void
words_row (uint32_t * w, const uint8_t * f, int rw, ptrdiff_t qs)
{
  for (ptrdiff_t x = 0; x < qs; x++) {
    uint32_t v = 0;
    for (int b = 0; b < 4; b++)
      if (x + b < rw)
        v |= (uint32_t) (uint8_t) (f[x + b] ^ 0x80) << (8 * b);
    w[x] = v;
  }
}

/* (kconv_cpu_isa: a tuning knob may hold the CPU to AVX2 or less) */
static int
vnni_usable (void)
{
  __builtin_cpu_init ();
  return kconv_cpu_isa () >= KCONV_ISA_AVX512
      && __builtin_cpu_supports ("avx512vnni");
}
#endif

static void
words_part (int t, int n, void *ctx)
{
#ifdef HAVE_VNNI_PATH
  CorrelateJob *job = ctx;
  const KMatchCorrelation *q = job->q;
  const int rows = q->ch * q->rh;
  int r0, r1;
  kconv_band (rows, t, n, &r0, &r1);
  for (int r = r0; r < r1; r++)
    words_row (job->words + (size_t) r * job->qs,
        q->planes + (size_t) r * q->rw, q->rw, job->qs);
#else
  (void) t;
  (void) n;
  (void) ctx;
#endif
}

/* interleaved blocks of 4 rows: every thread gets its share */
static void
correlate_part (int t, int n, void *ctx)
{
  CorrelateJob *job = ctx;
  const KMatchCorrelation *q = job->q;
  for (int y0 = 4 * t; y0 < q->mh; y0 += 4 * n) {
    const int y1 = y0 + 4 < q->mh ? y0 + 4 : q->mh;
#ifdef HAVE_VNNI_PATH
    if (job->words) {
      rows_vnni (job, y0, y1);
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
through_fft (const KMatchCorrelation * q)
{
  if (!q->fft)
    return 0;
  const double direct = (double) q->mw * q->mh * q->tw * q->th * q->ch *
      KMATCH_DIRECT_COST;
  const double side = 4.0 * (q->tw > q->th ? q->tw : q->th);
  const double n = side < 128 ? 128 : side;
  const double outputs = (n - q->tw + 1) * (n - q->th + 1);
  const double tiles = (double) q->mw * q->mh / outputs;
  const double fft = tiles * (q->ch + 1) * n * n * log2 (n * n) *
      KMATCH_FFT_COST;
  return fft < direct;
}

int
kmatch_cpu_correlate (const KMatchCorrelation * q, uint64_t * out)
{
  if (through_fft (q))
    return kmatch_fft_correlate (q->fft, q, out);
  CorrelateJob job = { q, out, NULL, NULL, 0, 0, 0, NULL };
  const int parts = q->n_threads > 0 ? q->n_threads : 1;
#ifdef HAVE_VNNI_PATH
  if (!q->squares && vnni_usable ()) {
    job.nq = (q->tw + 3) / 4;
    job.qs = (q->rw + 64 + 16 + 15) & ~(ptrdiff_t) 15;
    job.words = aligned_alloc (64, sizeof *job.words * (size_t) job.qs *
        q->rh * q->ch);
    job.kwords = calloc ((size_t) q->ch * q->th * job.nq, sizeof *job.kwords);
    if (!job.words || !job.kwords) {
      free (job.words);
      free (job.kwords);
      return -1;
    }
    uint64_t ksum = 0;
    for (int c = 0; c < q->ch; c++)
      for (int j = 0; j < q->th; j++)
        for (int i = 0; i < q->tw; i++) {
          const uint8_t k = q->kernel[((size_t) c * q->th + j) * q->tw + i];
          ksum += k;
          job.kwords[((size_t) c * q->th + j) * job.nq + i / 4] |=
              (uint32_t) k << (8 * (i % 4));
        }
    job.offset = 128 * ksum;
    kconv_team_run (parts, words_part, &job);
  }
#endif
  if (!job.words
      && !(job.acc = malloc (sizeof *job.acc * (size_t) q->mw * parts)))
    return -1;
  kconv_team_run (parts, correlate_part, &job);
  free (job.words);
  free (job.kwords);
  free (job.acc);
  return 0;
}
