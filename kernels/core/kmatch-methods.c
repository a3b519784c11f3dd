/* kconv: the searches by ssd, ncc and zncc
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With n template pixels that count, C channels, and at a position the
 * exact sums ft = sum F T, f2 = sum F^2 and f_c = sum of channel c of F
 * (t2 and t_c the template's):
 *   SSD  = f2 - 2 ft + t2
 *   NCC  = ft / sqrt (f2 t2)
 *   ZNCC = (n ft - sum_c f_c t_c) / sqrt ((n f2 - sum_c f_c^2)
 *                                          (n t2 - sum_c t_c^2))
 * (the zero-mean sums of kmatch.h times n).  Numerators and variances are
 * exact in 128-bit integers; only the last division and square root round.
 *
 * Samples deeper than bytes (one channel of 16-bit values) are summed the
 * same way; the correlation, whose kernels are bytes, takes the
 * template's high and low bytes in turn (F T = 256 F T_hi + F T_lo), and
 * under a mask the sums of F^2 take F^2's high and low 16 bits in turn.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch-methods.h"
#include "kmatch-cpu.h"
#include "kconv-error.h"
#include "kconv-team.h"

struct KMatchScorer
{
  KMatchMethod method;
  int tw, th, ch, n;            /* n: the pixels that count */
  double max;                   /* the largest sample: 255, or 2^depth - 1 */
  int depth;                    /* 0: bytes; else 16-bit values (ch 1) */
  uint8_t *tmpl;                /* ch planes of tw x th, 0 where masked;
                                 * deep: the high bytes, then the low */
  uint8_t *mask;                /* NULL, or ch planes of 0 / 1 */
  uint64_t t[3], t2;
  __int128 vt;                  /* n t2 - sum_c t_c^2 */
  int sums_fit_64;              /* n times any sum fits 63 bits */
  /* the search's buffers, kept between frames */
  uint8_t *planes;              /* the region's samples (deep: 16-bit) */
  size_t planes_size;
  uint64_t *maps;               /* ft, and with a mask f2 and f_c */
  double *scores;
  size_t map_cells;
  KMatchFft *fft;               /* the CPU's FFT plans and spectra */
};

/* A scorer of tw x th pixels, ch planes of template bytes (two for a deep
 * one) and the sums, from value (the template's sample at pixel p,
 * channel c); NULL when memory is short. */
static KMatchScorer *
scorer_new (KMatchMethod method, int tw, int th, int ch, int depth,
    const uint8_t * mask, unsigned (*value) (const void *, size_t, int),
    const void *tmpl)
{
  KMatchScorer *s = calloc (1, sizeof *s);
  const size_t plane = (size_t) tw * th;
  const int planes = depth ? 2 : ch;
  if (!s || !(s->tmpl = malloc (plane * planes))
      || (mask && !(s->mask = malloc (plane * ch)))) {
    kmatch_scorer_free (s);
    return NULL;
  }
  s->fft = kmatch_fft_new ();
  s->method = method;
  s->tw = tw;
  s->th = th;
  s->ch = ch;
  s->depth = depth;
  s->max = depth ? (double) ((1u << depth) - 1) : 255.0;
  for (size_t p = 0; p < plane; p++) {
    const int keep = !mask || mask[p * ch];
    s->n += keep;
    for (int c = 0; c < ch; c++) {
      const unsigned v = keep ? value (tmpl, p, c) : 0;
      if (depth) {
        s->tmpl[p] = (uint8_t) (v >> 8);
        s->tmpl[plane + p] = (uint8_t) v;
      } else {
        s->tmpl[c * plane + p] = (uint8_t) v;
      }
      if (s->mask)
        s->mask[c * plane + p] = (uint8_t) keep;
      s->t[c] += v;
      s->t2 += (uint64_t) v *v;
    }
  }
  s->vt = (__int128) s->n * s->t2;
  for (int c = 0; c < ch; c++)
    s->vt -= (__int128) s->t[c] * s->t[c];
  s->sums_fit_64 = (double) s->n * s->n * ch * s->max * s->max < 4e18;
  return s;
}

static unsigned
word_at (const void *tmpl, size_t p, int c)
{
  (void) c;
  return ((const uint16_t *) tmpl)[p];
}

/* (packed: pixel p's channel c at p * ch + c) */
typedef struct
{
  const uint8_t *tmpl;
  int ch;
} Packed;

static unsigned
packed_at (const void *packed, size_t p, int c)
{
  const Packed *k = packed;
  return k->tmpl[p * k->ch + c];
}

KMatchScorer *
kmatch_scorer_new (KMatchMethod method, const uint8_t * tmpl, int tw, int th,
    int ch, const uint8_t * mask)
{
  const Packed packed = { tmpl, ch };
  return scorer_new (method, tw, th, ch, 0, mask, packed_at, &packed);
}

KMatchScorer *
kmatch_scorer_new_deep (KMatchMethod method, const uint16_t * tmpl, int tw,
    int th, int depth, const uint8_t * mask)
{
  return scorer_new (method, tw, th, 1, depth, mask, word_at, tmpl);
}

void
kmatch_scorer_free (KMatchScorer * s)
{
  if (!s)
    return;
  free (s->tmpl);
  free (s->mask);
  free (s->planes);
  free (s->maps);
  free (s->scores);
  kmatch_fft_free (s->fft);
  free (s);
}

/* Scores of a row of n positions from their sums (f: ch rows of n, f_c
 * for c < ch), with each one's correlation and SSD where corr and ssd are
 * not NULL.  The method's loop is chosen once a row. */
static void
score_row (const KMatchScorer * s, int n, const uint64_t * ft,
    const uint64_t * f2, const uint64_t * const *f, double *scores,
    double *corr, uint64_t * ssd)
{
  const int ch = s->ch;
  switch (s->method) {
    case KMATCH_METHOD_SSD:{
      const double norm = s->max * s->max * s->n * ch;
      for (int x = 0; x < n; x++) {
        const uint64_t d = f2[x] + s->t2 - 2 * ft[x];
        scores[x] = (double) d / norm;
        if (ssd)
          ssd[x] = d;
        if (corr)
          corr[x] = 0;
      }
      return;
    }
    case KMATCH_METHOD_NCC:{
      const double t2 = (double) s->t2;
      for (int x = 0; x < n; x++) {
        double c = f2[x] && s->t2 ?
            (double) ft[x] / sqrt ((double) f2[x] * t2) : 0;
        c = c > 1 ? 1 : c;
        scores[x] = 1 - c;
        if (corr)
          corr[x] = c;
        if (ssd)
          ssd[x] = 0;
      }
      return;
    }
    default:
      break;
  }
  const double vt = (double) s->vt;
  for (int x = 0; x < n; x++) {
    double num, vf;
    if (s->sums_fit_64) {
      int64_t a = (int64_t) s->n * (int64_t) ft[x];
      int64_t b = (int64_t) s->n * (int64_t) f2[x];
      for (int c = 0; c < ch; c++) {
        a -= (int64_t) f[c][x] * (int64_t) s->t[c];
        b -= (int64_t) f[c][x] * (int64_t) f[c][x];
      }
      num = (double) a;
      vf = (double) b;
    } else {
      __int128 a = (__int128) s->n * ft[x], b = (__int128) s->n * f2[x];
      for (int c = 0; c < ch; c++) {
        a -= (__int128) f[c][x] * s->t[c];
        b -= (__int128) f[c][x] * f[c][x];
      }
      num = (double) a;
      vf = (double) b;
    }
    double c = vf > 0 && s->vt > 0 ? num / sqrt (vf * vt) : 0;
    c = c > 1 ? 1 : c < -1 ? -1 : c;
    scores[x] = (1 - c) / 2;
    if (corr)
      corr[x] = c;
    if (ssd)
      ssd[x] = 0;
  }
}

typedef struct
{
  const KMatchScorer *s;
  int rw, mw, mh;
  const uint64_t *ft, *f2, *f[3];       /* f2, f: NULL without a mask */
  double *scores;
  uint64_t *sums;               /* SSD map, or NULL */
  int failed;
} ScoreJob;

/* Adds the rw samples of the planes at `at` to the column sums of F and
 * of F^2 */
static void
add_row (const KMatchScorer * s, size_t at, int rw, uint64_t * f, uint64_t * f2)
{
  if (s->depth) {
    const uint16_t *p = (const uint16_t *) s->planes + at;
    for (int x = 0; x < rw; x++) {
      f[x] += p[x];
      f2[x] += (uint64_t) p[x] * p[x];
    }
    return;
  }
  const uint8_t *p = s->planes + at;
  for (int x = 0; x < rw; x++) {
    f[x] += p[x];
    f2[x] += (uint64_t) p[x] * p[x];
  }
}

/* Slides the column sums down a row: the samples at `at` leave, those
 * `down` further in come */
static void
slide_row (const KMatchScorer * s, size_t at, size_t down, int rw,
    uint64_t * f, uint64_t * f2)
{
  if (s->depth) {
    const uint16_t *out = (const uint16_t *) s->planes + at, *in = out + down;
    for (int x = 0; x < rw; x++) {
      f[x] += (uint64_t) in[x] - out[x];
      f2[x] += (uint64_t) in[x] * in[x] - (uint64_t) out[x] * out[x];
    }
    return;
  }
  const uint8_t *out = s->planes + at, *in = out + down;
  for (int x = 0; x < rw; x++) {
    f[x] += (uint64_t) in[x] - out[x];
    f2[x] += (uint64_t) in[x] * in[x] - (uint64_t) out[x] * out[x];
  }
}

/* Scores rows y0 .. y1 - 1.  Without a mask the box sums of F and F^2
 * slide along: column sums over th rows, then windows of tw of them. */
static void
score_part (int t, int n, void *ctx)
{
  ScoreJob *job = ctx;
  const KMatchScorer *s = job->s;
  const int ch = s->ch, rw = job->rw, mw = job->mw;
  const size_t plane = (size_t) rw * (job->mh + s->th - 1);
  int y0, y1;
  kconv_band (job->mh, t, n, &y0, &y1);
  if (y0 >= y1)
    return;
  /* ch column sums of F and one of F^2, and a row of window sums of each */
  uint64_t *col = NULL, *win = NULL;
  if (!job->f2) {
    col = calloc ((size_t) (ch + 1) * rw, sizeof *col);
    win = malloc ((size_t) (ch + 1) * mw * sizeof *win);
    if (!col || !win) {
      free (col);
      free (win);
      __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
      return;
    }
    for (int c = 0; c < ch; c++)
      for (int j = 0; j < s->th; j++)
        add_row (s, c * plane + (size_t) (y0 + j) * rw, rw,
            col + (size_t) c * rw, col + (size_t) ch * rw);
  }
  for (int y = y0; y < y1; y++) {
    const size_t at = (size_t) y * mw;
    const uint64_t *f[3] = { NULL }, *f2;
    if (col) {
      for (int c = 0; c <= ch; c++) {
        const uint64_t *cs = col + (size_t) c * rw;
        uint64_t *w = win + (size_t) c * mw, sum = 0;
        for (int i = 0; i < s->tw; i++)
          sum += cs[i];
        for (int x = 0; x < mw; x++) {
          w[x] = sum;
          if (x + 1 < mw)
            sum += cs[x + s->tw] - cs[x];
        }
      }
      for (int c = 0; c < ch; c++)
        f[c] = win + (size_t) c *mw;
      f2 = win + (size_t) ch *mw;
    } else {
      for (int c = 0; c < ch; c++)
        f[c] = job->f[c] + at;
      f2 = job->f2 + at;
    }
    score_row (s, mw, job->ft + at, f2, f, job->scores + at, NULL,
        job->sums ? job->sums + at : NULL);
    if (col && y + 1 < y1)
      for (int c = 0; c < ch; c++)
        slide_row (s, c * plane + (size_t) y * rw, (size_t) s->th * rw, rw,
            col + (size_t) c * rw, col + (size_t) ch * rw);
  }
  free (col);
  free (win);
}

static int
overlaps (const KMatchPosition * a, int x, int y, int w, int h)
{
  return a->x < x + w && x < a->x + w && a->y < y + h && y < a->y + h;
}

/* Greedy, as kmatch.c picks SADs: the best score, then the best that
 * overlaps none taken, ...; a strict < keeps the smallest y, then x. */
static int
pick_best (const double *scores, int mw, int mh, int tw, int th,
    int max_matches, KMatchPosition * out)
{
  int n = 0;
  while (n < max_matches) {
    int bx = -1, by = -1;
    double best = INFINITY;
    for (int y = 0; y < mh; y++)
      for (int x = 0; x < mw; x++) {
        const double v = scores[(size_t) y * mw + x];
        if (!(v < best))
          continue;
        int free_spot = 1;
        for (int k = 0; k < n && free_spot; k++)
          free_spot = !overlaps (&out[k], x, y, tw, th);
        if (free_spot) {
          best = v;
          bx = x;
          by = y;
        }
      }
    if (bx < 0)
      break;
    out[n].x = bx;
    out[n].y = by;
    n++;
  }
  return n;
}

/* The search's buffers, grown to the region; 0, or -1 when memory is
 * short. */
static int
grow (KMatchScorer * s, int rw, int rh, int mw, int mh)
{
  /* (deep: the values, and under a mask F^2's high and low halves) */
  const size_t planes = (size_t) rw * rh * (s->depth ? 2 * (s->mask ? 3 : 1) :
      s->ch);
  const size_t cells = (size_t) mw * mh;
  if (planes > s->planes_size) {
    free (s->planes);
    s->planes_size = (s->planes = malloc (planes)) ? planes : 0;
  }
  if (cells > s->map_cells) {
    free (s->maps);
    free (s->scores);
    /* ft, and with a mask f2 and f_c; deep, one more for the partial
     * correlations */
    s->maps = malloc (cells * sizeof *s->maps * ((s->mask ? 2 + s->ch : 1) +
            (s->depth ? 1 : 0)));
    s->scores = malloc (cells * sizeof *s->scores);
    s->map_cells = s->maps && s->scores ? cells : 0;
  }
  return s->planes_size >= planes && s->map_cells >= cells ? 0 : -1;
}

int
kmatch_scorer_scoring (const KMatchScorer * s, KMatchScoring * out)
{
  if (s->mask || !s->sums_fit_64)
    return 0;
  memset (out, 0, sizeof *out);
  out->method = (int) s->method;
  out->n = s->n;
  out->ch = s->ch;
  for (int c = 0; c < s->ch; c++)
    out->t[c] = s->t[c];
  out->t2 = s->t2;
  out->vt = (int64_t) s->vt;
  out->norm = s->max * s->max * s->n * s->ch;
  return 1;
}

void
kmatch_scorer_report (const KMatchScorer * s, const KMatchSums * sums, int n,
    KMatchPosition * matches)
{
  for (int i = 0; i < n; i++) {
    const uint64_t *f[3] = { &sums[i].f[0], &sums[i].f[1], &sums[i].f[2] };
    uint64_t ssd;
    double score;
    memset (&matches[i], 0, sizeof matches[i]);
    matches[i].x = sums[i].x;
    matches[i].y = sums[i].y;
    score_row (s, 1, &sums[i].ft, &sums[i].f2, f, &score,
        &matches[i].correlation, &ssd);
    matches[i].score = score;
    matches[i].sad = ssd;
  }
}

/* The sum of F T at every position: the planes with the template's (ch
 * planes of bytes), or the 16-bit values with the template's high bytes
 * and low bytes, combined (partial: room for a map): 0, or -1 when memory
 * is short. */
static int
correlate (const KMatchScorer * s, const KConvBackendOps * ops,
    const KMatchCorrelation * q, const uint16_t * values,
    const uint8_t * hi, const uint8_t * lo, uint64_t * out, uint64_t * partial)
{
  if (!s->depth)
    return ops->match_correlate (q, out);
  const size_t cells = (size_t) q->mw * q->mh;
  KMatchCorrelation d = *q;
  d.planes = NULL;
  d.planes16 = values;
  d.ch = 1;
  d.kernel = hi;
  if (ops->match_correlate (&d, partial) != 0)
    return -1;
  d.kernel = lo;
  if (ops->match_correlate (&d, out) != 0)
    return -1;
  for (size_t i = 0; i < cells; i++)
    out[i] += partial[i] << 8;
  return 0;
}

/* The region's samples as the scorer's planes: one a channel (or the luma
 * alone), or the 16-bit values, and under a mask their squares' high and
 * low halves after them */
static void
pack_region (KMatchScorer * s, const KMatchScoredRegion * r)
{
  const size_t plane = (size_t) r->rw * r->rh;
  if (!s->depth) {
    for (int c = 0; c < s->ch; c++)
      kmatch_cpu_pack (s->planes + c * plane, r->base, r->stride,
          r->pixel_stride, r->offsets + c, 1, r->luma, r->rw, r->rh,
          r->n_threads);
    return;
  }
  uint16_t *v = (uint16_t *) s->planes;
  kmatch_cpu_pack_deep (v, r->base + r->offsets[0], r->stride,
      r->pixel_stride, r->depth, r->shift, r->big_endian, r->rw, r->rh,
      r->n_threads);
  for (size_t i = 0; s->mask && i < plane; i++) {
    const uint32_t sq = (uint32_t) v[i] * v[i];
    v[plane + i] = (uint16_t) (sq >> 16);
    v[2 * plane + i] = (uint16_t) sq;
  }
}

/* A sample of the packed planes */
static uint64_t
sample (const KMatchScorer * s, size_t at)
{
  return s->depth ? ((const uint16_t *) s->planes)[at] : s->planes[at];
}

KConvStatus
kmatch_scorer_search (KMatchScorer * s, const KConvBackendOps * ops,
    const KMatchScoredRegion * r, int max_matches, KMatchPosition * matches,
    int *n_matches, double *score_map, uint64_t * sum_map)
{
  const int mw = r->rw - s->tw + 1, mh = r->rh - s->th + 1;
  const size_t cells = (size_t) mw * mh, plane = (size_t) r->rw * r->rh;
  const size_t tplane = (size_t) s->tw * s->th;
  if (grow (s, r->rw, r->rh, mw, mh) != 0)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  pack_region (s, r);

  const uint16_t *values = (const uint16_t *) s->planes;
  /* (deep: the maps' last cells hold the partial correlations) */
  uint64_t *partial = s->maps + cells * (s->mask ? 2 + s->ch : 1);
  KMatchCorrelation q = { s->planes, r->rw, r->rh, s->tmpl, s->tw, s->th,
    s->ch, mw, mh, 0, r->n_threads, s->fft, NULL
  };
  ScoreJob job = { s, r->rw, mw, mh, s->maps, NULL, {NULL}, s->scores,
  sum_map, 0
  };
  int failed = correlate (s, ops, &q, values, s->tmpl, s->tmpl + tplane,
      s->maps, partial);
  if (s->mask && !failed) {
    /* the sums under the mask are correlations with it too */
    job.f2 = s->maps + cells;
    if (!s->depth) {
      KMatchCorrelation sq = q;
      sq.kernel = s->mask;
      sq.squares = 1;
      failed = ops->match_correlate (&sq, s->maps + cells);
    } else {
      /* F^2's high and low 16 bits, each times the mask */
      KMatchCorrelation half = q;
      half.planes = NULL;
      half.kernel = s->mask;
      half.planes16 = values + plane;
      failed = ops->match_correlate (&half, partial);
      half.planes16 = values + 2 * plane;
      failed = failed || ops->match_correlate (&half, s->maps + cells);
      for (size_t i = 0; !failed && i < cells; i++)
        s->maps[cells + i] += partial[i] << 16;
    }
    for (int c = 0; c < s->ch && !failed; c++) {
      KMatchCorrelation one = q;
      one.planes = s->depth ? NULL : s->planes + c * plane;
      one.planes16 = s->depth ? values : NULL;
      one.kernel = s->mask + c * tplane;
      one.ch = 1;
      job.f[c] = s->maps + (2 + c) * cells;
      failed = ops->match_correlate (&one, s->maps + (2 + c) * cells);
    }
  }
  if (!failed)
    kconv_team_run (cells < 65536 ? 1 : r->n_threads, score_part, &job);
  if (failed || job.failed)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");

  const int n = pick_best (s->scores, mw, mh, s->tw, s->th, max_matches,
      matches);
  for (int i = 0; i < n; i++) {
    /* the map's score, with its correlation and SSD from the same sums */
    const size_t at = (size_t) matches[i].y * mw + matches[i].x;
    uint64_t fc[3] = { 0 }, f2 = 0, ssd;
    const uint64_t *f[3] = { fc, fc + 1, fc + 2 };
    double score;
    if (s->mask) {
      f2 = job.f2[at];
      for (int c = 0; c < s->ch; c++)
        fc[c] = job.f[c][at];
    } else {
      for (int c = 0; c < s->ch; c++)
        for (int j = 0; j < s->th; j++)
          for (int x = 0; x < s->tw; x++) {
            const uint64_t v = sample (s, c * plane +
                (size_t) (matches[i].y + j) * r->rw + matches[i].x + x);
            fc[c] += v;
            f2 += v * v;
          }
    }
    score_row (s, 1, s->maps + at, &f2, f, &score, &matches[i].correlation,
        &ssd);
    matches[i].score = score;
    matches[i].sad = ssd;
  }
  *n_matches = n;
  if (score_map)
    memcpy (score_map, s->scores, cells * sizeof *score_map);
  return KCONV_OK;
}
