/* kconv: exact template matching that skips the positions it can prove
 * lose, for one sample type (included by kmatch-prune.c for bytes and by
 * kmatch-prune-deep.c for 16-bit values, each defining first:
 *   PRUNE_SAMPLE          the sample type
 *   PRUNE_SUM             the integral image's and block sums' type
 *   PRUNE_STATE           the state's struct name
 *   PRUNE_NAME(x)         the public functions' names
 *   PRUNE_SAD_ROW(a, b, n), PRUNE_SAD_ROW_MASKED(a, b, m, n)  a row's SAD
 *   PRUNE_SHRUNK_MAP(...) the exhaustive map of the shrunk search, as
 *                         kmatch_cpu_map's arguments; 0, or -1 when memory
 *                         is short)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "kmatch-cpu.h"
#include "kconv-team.h"
#include "kmatch-sad.h"

#define MAX_LEVELS 6            /* 1 x 1 up to 32 x 32 blocks */
#define MIN_BLOCK_PIXELS 64     /* finer blocks cost more than they prune */
#define MAX_SHRINK 8

/* What is known of a position's SAD: a value below 2^56 and in the top byte
 * how it was found.  Tag 0: nothing yet (value 0); 1 + l: the bound of
 * level l; PARTIAL: an exact sum stopped early (every level done); EXACT. */
#define TAG_SHIFT 56
#define VALUE(k) ((k) & ((UINT64_C (1) << TAG_SHIFT) - 1))
#define TAG(k) ((int) ((k) >> TAG_SHIFT))
#define KNOWN(tag, v) (((uint64_t) (tag) << TAG_SHIFT) | (v))
#define TAG_PARTIAL 0xfe
#define TAG_EXACT 0xff

/* A block of the template: [x0, x1) x [y0, y1). */
typedef struct
{
  int x0, y0, x1, y1;
} KMatchBlock;

struct PRUNE_STATE
{
  PRUNE_SUM *integral;
  size_t integral_cells;
  uint64_t *known;
  size_t known_cells;
  /* the shrunk region, then the shrunk template */
  PRUNE_SAMPLE *small;
  size_t small_size;
  uint64_t *small_map;
  size_t small_map_cells;
  PRUNE_SUM *tsums;             /* the template's block sums, level by level */
  size_t tsums_cells;
  KMatchBlock *blocks;          /* the blocks they are over */
  size_t blocks_cells;
  uint8_t *small_mask;          /* the shrunk template's, with a mask */
  size_t small_mask_size;
};

typedef struct
{
  const PRUNE_SAMPLE *frame, *tmpl;
  const uint8_t *mask;          /* NULL, or 0xff where the template counts
                                 * (tmpl is then 0 where it does not) */
  ptrdiff_t stride;
  int tw, th, ch, mw, mh, rw, rh, n_threads;
  const PRUNE_SUM *integral;
  size_t irow;                  /* cells a row of the integral image */
  int levels;
  /* level l: its blocks (those whose every pixel counts) and their sums */
  const KMatchBlock *block[MAX_LEVELS];
  int n_blocks[MAX_LEVELS];
  const PRUNE_SUM *tsum[MAX_LEVELS];
  /* the cost of a level's bound and of an exact sum, in about the same
   * units (memory reads a block; bytes / 16 and a row's overhead) */
  uint64_t level_cost[MAX_LEVELS], exact_cost;
  uint64_t *known;
  const KMatchPosition *taken;
  int n_taken;
  uint64_t threshold;           /* the smallest exact sum found; atomic */
  KMatchPosition *best;         /* one a part */
} Prune;

static void *
grow (void *buf, size_t *cells, size_t need, size_t cell_size)
{
  if (need <= *cells)
    return buf;
  free (buf);
  buf = malloc (need * cell_size);
  *cells = buf ? need : 0;
  return buf;
}

PRUNE_STATE *PRUNE_NAME (new) (void)
{
  return calloc (1, sizeof (PRUNE_STATE));
}

void PRUNE_NAME (free) (PRUNE_STATE * k)
{
  if (!k)
    return;
  free (k->integral);
  free (k->known);
  free (k->small);
  free (k->small_map);
  free (k->tsums);
  free (k->blocks);
  free (k->small_mask);
  free (k);
}

/* ---- the integral image: sums wrap modulo PRUNE_SUM's range, exact for
 * any box whose true sum it holds ---- */

static void
integral_rows (int t, int n, void *ctx)
{
  const Prune *p = ctx;
  PRUNE_SUM *ii = (PRUNE_SUM *) p->integral;
  const int ch = p->ch, cells = p->rw * ch;
  int y0, y1;
  kconv_band (p->rh, t, n, &y0, &y1);
  for (int y = y0; y < y1; y++) {
    const PRUNE_SAMPLE *f = p->frame + (ptrdiff_t) y * p->stride;
    PRUNE_SUM *row = ii + (size_t) (y + 1) * p->irow;
    memset (row, 0, ch * sizeof *row);
    for (int i = 0; i < cells; i++)
      row[i + ch] = row[i] + f[i];
  }
}

static void
integral_columns (int t, int n, void *ctx)
{
  const Prune *p = ctx;
  PRUNE_SUM *ii = (PRUNE_SUM *) p->integral;
  int c0, c1;
  kconv_band ((int) p->irow, t, n, &c0, &c1);
  for (int y = 1; y <= p->rh; y++) {
    PRUNE_SUM *row = ii + (size_t) y * p->irow, *up = row - p->irow;
    for (int i = c0; i < c1; i++)
      row[i] += up[i];
  }
}

/* the sum of channel c over [x0, x1) x [y0, y1) */
static inline PRUNE_SUM
box (const Prune * p, int x0, int y0, int x1, int y1, int c)
{
  const PRUNE_SUM *r0 = p->integral + (size_t) y0 * p->irow;
  const PRUNE_SUM *r1 = p->integral + (size_t) y1 * p->irow;
  const int ch = p->ch;
  return r1[x1 * ch + c] - r1[x0 * ch + c] - r0[x1 * ch + c] + r0[x0 * ch + c];
}

/* ---- the bounds and the exact sum ---- */

/* The bound of level l at (x, y); stops early, with a smaller but still
 * valid bound, once past stop.  (With a mask, only blocks whose every pixel
 * counts: leaving terms out keeps a sum of them a bound.) */
static uint64_t
level_bound (const Prune * p, int l, int x, int y, uint64_t stop)
{
  const int ch = p->ch;
  const KMatchBlock *b = p->block[l];
  const PRUNE_SUM *t = p->tsum[l];
  uint64_t lb = 0;
  for (int k = 0; k < p->n_blocks[l]; k++, b++) {
    const PRUNE_SUM *r0 = p->integral + (size_t) (y + b->y0) * p->irow +
        (size_t) x * ch;
    const PRUNE_SUM *r1 = p->integral + (size_t) (y + b->y1) * p->irow +
        (size_t) x * ch;
    const int a = b->x0 * ch, e = b->x1 * ch;
    for (int c = 0; c < ch; c++, t++) {
      const PRUNE_SUM v = r1[e + c] - r1[a + c] - r0[e + c] + r0[a + c];
      lb += v > *t ? v - *t : *t - v;
    }
    if ((k & 15) == 15 && lb > stop)
      break;
  }
  return lb;
}

/* The SAD at (x, y), stopped once past stop (*complete 0: a bound).
 * Inlined into one function for opaque templates (mask NULL) and one for
 * masked ones, so that neither loop tests the mask: a test inside the row
 * loop cost the worst case 18%. */
static inline __attribute__((always_inline)) uint64_t
exact_sad (const Prune * p, const uint8_t * mask, int x, int y,
    uint64_t stop, int *complete)
{
  const int n = p->tw * p->ch;
  const PRUNE_SAMPLE *f = p->frame + (ptrdiff_t) y * p->stride + (ptrdiff_t) x *
      p->ch;
  uint64_t s = 0;
  for (int j = 0; j < p->th; j++) {
    const PRUNE_SAMPLE *row = f + (ptrdiff_t) j * p->stride;
    const PRUNE_SAMPLE *t = p->tmpl + (size_t) j * n;
    s += mask ? PRUNE_SAD_ROW_MASKED (row, t, mask + (size_t) j * n, n) :
        PRUNE_SAD_ROW (row, t, n);
    if (s > stop) {
      *complete = j == p->th - 1;
      return s;
    }
  }
  *complete = 1;
  return s;
}

KMATCH_MULTIVERSION static uint64_t
exact_sad_opaque (const Prune * p, int x, int y, uint64_t stop, int *complete)
{
  return exact_sad (p, NULL, x, y, stop, complete);
}

KMATCH_MULTIVERSION static uint64_t
exact_sad_masked (const Prune * p, int x, int y, uint64_t stop, int *complete)
{
  return exact_sad (p, p->mask, x, y, stop, complete);
}

/* How often each level's bound has pruned, in one thread.  A level is
 * skipped (which loses nothing: any bound is a bound) while it prunes too
 * seldom to pay for itself, as on random noise or when the template is
 * absent; one position in 64 still tries it, in case that changes. */
typedef struct
{
  uint64_t tried[MAX_LEVELS], pruned[MAX_LEVELS];
  unsigned visits;
} LevelStats;

static int
level_pays (const Prune * p, const LevelStats * st, int l)
{
  return st->tried[l] < 64 || (st->visits & 63) == 0
      || st->pruned[l] * p->exact_cost >= st->tried[l] * p->level_cost[l];
}

/* What is known of (x, y), taken on until exact or above stop. */
static uint64_t
refine (const Prune * p, LevelStats * st, int x, int y, uint64_t known,
    uint64_t stop)
{
  const int tag = TAG (known);
  if (tag == TAG_EXACT || VALUE (known) > stop)
    return known;
  st->visits++;
  for (int l = tag == TAG_PARTIAL ? p->levels : tag; l < p->levels; l++) {
    if (!level_pays (p, st, l))
      continue;
    st->tried[l]++;
    const uint64_t b = level_bound (p, l, x, y, stop);
    if (b > stop) {
      st->pruned[l]++;
      return KNOWN (1 + l, b);
    }
  }
  int complete;
  const uint64_t s = p->mask ? exact_sad_masked (p, x, y, stop, &complete) :
      exact_sad_opaque (p, x, y, stop, &complete);
  return KNOWN (complete ? TAG_EXACT : TAG_PARTIAL, s);
}

/* ---- the search ---- */

static int
overlaps_taken (const Prune * p, int x, int y)
{
  for (int k = 0; k < p->n_taken; k++)
    if (x < p->taken[k].x + p->tw && p->taken[k].x < x + p->tw
        && y < p->taken[k].y + p->th && p->taken[k].y < y + p->th)
      return 1;
  return 0;
}

static int
before (int x, int y, uint64_t s, const KMatchPosition * b)
{
  return s < b->sad || (s == b->sad && (y < b->y || (y == b->y && x < b->x)));
}

static void
lower_threshold (Prune * p, uint64_t s)
{
  uint64_t cur = __atomic_load_n (&p->threshold, __ATOMIC_RELAXED);
  while (s < cur && !__atomic_compare_exchange_n (&p->threshold, &cur, s, 1,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* Visits (x, y): refines it against the threshold and keeps it in *best
 * when it wins.  in_order: the thread visits its positions in row-major
 * order, so *best comes before (x, y). */
static inline void
visit (Prune * p, LevelStats * st, int x, int y, KMatchPosition * best,
    int in_order)
{
  uint64_t *k = p->known + (size_t) y * p->mw + x;
  uint64_t stop = __atomic_load_n (&p->threshold, __ATOMIC_RELAXED);
  if (in_order && best->x >= 0 && best->sad <= stop) {
    /* visited after this thread's best: only a smaller sum wins (on flat
     * content, where every position ties, this is what prunes) */
    if (best->sad == 0 || VALUE (*k) >= best->sad)
      return;
    stop = best->sad - 1;
  }
  if (VALUE (*k) > stop || overlaps_taken (p, x, y))
    return;
  *k = refine (p, st, x, y, *k, stop);
  if (TAG (*k) != TAG_EXACT)
    return;
  const uint64_t s = VALUE (*k);
  if (before (x, y, s, best))
    best->x = x, best->y = y, best->sad = s;
  lower_threshold (p, s);
}

/* interleaved blocks of 8 rows, as the exhaustive map */
static void
scan_part (int t, int n, void *ctx)
{
  Prune *p = ctx;
  KMatchPosition best = { -1, -1, UINT64_MAX };
  LevelStats st = { {0} };
  for (int y0 = 8 * t; y0 < p->mh; y0 += 8 * n)
    for (int y = y0; y < y0 + 8 && y < p->mh; y++)
      for (int x = 0; x < p->mw; x++)
        visit (p, &st, x, y, &best, 1);
  p->best[t] = best;
}

/* The shrunk search: region and template as s x s block means, searched
 * in full (1 / s^4 of the work).  Its map stays for every round.  0, 1
 * when no shrunk pixel counts (no seed), -1 when memory is short. */
static int
shrunk_search (PRUNE_STATE * k, const Prune * p, int s, int *smw, int *smh)
{
  const int ch = p->ch, sw = p->rw / s, sh = p->rh / s;
  const int stw = p->tw / s, sth = p->th / s;
  *smw = sw - stw + 1;
  *smh = sh - sth + 1;
  const size_t region = (size_t) sw * sh * ch, tmpl = (size_t) stw *sth * ch;
  k->small = grow (k->small, &k->small_size, region + tmpl,
      sizeof (PRUNE_SAMPLE));
  k->small_map = grow (k->small_map, &k->small_map_cells,
      (size_t) *smw * *smh, sizeof (uint64_t));
  if (!k->small || !k->small_map)
    return -1;
  const PRUNE_SUM half = (PRUNE_SUM) (s * s / 2), area = (PRUNE_SUM) (s * s);
  for (int y = 0; y < sh; y++)
    for (int x = 0; x < sw; x++)
      for (int c = 0; c < ch; c++)
        k->small[((size_t) y * sw + x) * ch + c] = (PRUNE_SAMPLE)
            ((box (p, x * s, y * s, x * s + s, y * s + s, c) + half) / area);
  /* with a mask, a shrunk pixel counts where all its s x s pixels do */
  uint8_t *sm = NULL;
  int counted = 0;
  if (p->mask) {
    k->small_mask = grow (k->small_mask, &k->small_mask_size, tmpl, 1);
    if (!(sm = k->small_mask))
      return -1;
  }
  PRUNE_SAMPLE *st = k->small + region;
  for (int y = 0; y < sth; y++)
    for (int x = 0; x < stw; x++)
      for (int c = 0; c < ch; c++) {
        PRUNE_SUM sum = 0;
        int all = 1;
        for (int j = 0; j < s; j++)
          for (int i = 0; i < s; i++) {
            const size_t at = ((size_t) (y * s + j) * p->tw + x * s + i) * ch
                + c;
            sum += p->tmpl[at];
            all &= !p->mask || p->mask[at] != 0;
          }
        const size_t at = ((size_t) y * stw + x) * ch + c;
        st[at] = all ? (PRUNE_SAMPLE) ((sum + half) / area) : 0;
        if (sm)
          sm[at] = all ? 0xff : 0;
        counted += all;
      }
  if (!counted)
    return 1;                   /* nothing to seed from */
  if (PRUNE_SHRUNK_MAP (k->small, (ptrdiff_t) sw * ch, st, stw, sth, ch,
          *smw, *smh, k->small_map, sm, p->n_threads) != 0)
    return -1;
  return 0;
}

/* The threshold of a round: the exact sums around the best shrunk position
 * that overlaps no match taken, nearest first. */
static void
seed (Prune * p, const uint64_t * small_map, int smw, int smh, int s)
{
  int cx = -1, cy = -1;
  uint64_t cs = UINT64_MAX;
  for (int y = 0; y < smh; y++)
    for (int x = 0; x < smw; x++)
      if (small_map[(size_t) y * smw + x] < cs
          && !overlaps_taken (p, x * s, y * s)) {
        cs = small_map[(size_t) y * smw + x];
        cx = x;
        cy = y;
      }
  if (cx < 0)
    return;
  KMatchPosition unused = { -1, -1, UINT64_MAX };
  LevelStats st = { {0}
  };
  for (int r = 0; r <= s; r++)
    for (int y = cy * s - r; y <= cy * s + r; y++)
      for (int x = cx * s - r; x <= cx * s + r; x++) {
        const int ring = abs (y - cy * s) == r || abs (x - cx * s) == r;
        if (ring && x >= 0 && y >= 0 && x < p->mw && y < p->mh)
          visit (p, &st, x, y, &unused, 0);
      }
}

/* Whether every byte of the template in block b counts. */
static int
block_counts (const Prune * p, const KMatchBlock * b)
{
  for (int y = b->y0; p->mask && y < b->y1; y++)
    for (size_t i = ((size_t)y * p->tw + b->x0) * p->ch;
        i < ((size_t) y * p->tw + b->x1) * p->ch; i++)
      if (!p->mask[i])
        return 0;
  return 1;
}

/* The template's blocks and their sums, level by level (a level without a
 * block that counts is left out). */
static int
prepare_levels (PRUNE_STATE * k, Prune * p)
{
  int depth = 0;
  size_t cells = 0;
  while (depth < MAX_LEVELS && (uint64_t) (p->tw >> depth) *
      (p->th >> depth) >= MIN_BLOCK_PIXELS)
    cells += (size_t) 1 << (2 * depth++);
  k->blocks = grow (k->blocks, &k->blocks_cells, cells, sizeof (KMatchBlock));
  k->tsums = grow (k->tsums, &k->tsums_cells, cells * p->ch,
      sizeof (PRUNE_SUM));
  if (!k->blocks || !k->tsums)
    return -1;
  p->exact_cost = (uint64_t) p->tw * p->th * p->ch / 16 + 4 * p->th;
  KMatchBlock *b = k->blocks;
  PRUNE_SUM *t = k->tsums;
  p->levels = 0;
  for (int d = 0; d < depth; d++) {
    const int n = 1 << d, l = p->levels;
    p->block[l] = b;
    p->tsum[l] = t;
    p->n_blocks[l] = 0;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        b->x0 = (int) ((long long) i * p->tw >> d);
        b->y0 = (int) ((long long) j * p->th >> d);
        b->x1 = (int) ((long long) (i + 1) * p->tw >> d);
        b->y1 = (int) ((long long) (j + 1) * p->th >> d);
        if (!block_counts (p, b))
          continue;
        for (int c = 0; c < p->ch; c++, t++) {
          PRUNE_SUM sum = 0;
          for (int y = b->y0; y < b->y1; y++)
            for (int x = b->x0; x < b->x1; x++)
              sum += p->tmpl[((size_t) y * p->tw + x) * p->ch + c];
          *t = sum;
        }
        b++;
        p->n_blocks[l]++;
      }
    if (p->n_blocks[l] == 0)
      continue;
    p->level_cost[l] = (uint64_t) p->n_blocks[l] * 4 * p->ch + 8;
    p->levels++;
  }
  return 0;
}

int
PRUNE_NAME (search) (PRUNE_STATE * k, const PRUNE_SAMPLE * frame,
    ptrdiff_t stride, const PRUNE_SAMPLE * tmpl, const uint8_t * byte_mask,
    int tw, int th, int ch, int mw, int mh, int max_matches,
    KMatchPosition * out, int n_threads)
{
  const int side = tw < th ? tw : th, s = side / 12 > 2 ? side / 12 : 2;
  if (side < 16 || (int64_t) tw * th >= (1 << 24) || ch > KCONV_MAX_CHANNELS)
    return KMATCH_PRUNE_NOT_WORTH_IT;
  Prune *p = calloc (1, sizeof *p);
  if (!p)
    return -1;
  p->frame = frame;
  p->tmpl = tmpl;
  p->mask = byte_mask;
  p->stride = stride;
  p->tw = tw;
  p->th = th;
  p->ch = ch;
  p->mw = mw;
  p->mh = mh;
  p->rw = mw + tw - 1;
  p->rh = mh + th - 1;
  p->n_threads = n_threads < 1 ? 1 : n_threads;
  p->taken = out;
  p->irow = (size_t) (p->rw + 1) * ch;
  k->integral = grow (k->integral, &k->integral_cells,
      p->irow * (p->rh + 1), sizeof (PRUNE_SUM));
  k->known = grow (k->known, &k->known_cells, (size_t) mw * mh,
      sizeof (uint64_t));
  p->best = malloc (p->n_threads * sizeof *p->best);
  int n = -1, smw, smh;
  if (!k->integral || !k->known || !p->best || prepare_levels (k, p) < 0)
    goto out;
  p->integral = k->integral;
  p->known = k->known;
  memset (k->integral, 0, p->irow * sizeof (PRUNE_SUM));
  kconv_team_run (p->n_threads, integral_rows, p);
  kconv_team_run (p->n_threads, integral_columns, p);
  memset (k->known, 0, (size_t) mw * mh * sizeof (uint64_t));
  const int shrink = s > MAX_SHRINK ? MAX_SHRINK : s;
  const int seeded = shrunk_search (k, p, shrink, &smw, &smh);
  if (seeded < 0)
    goto out;
  if (seeded > 0)
    smw = smh = 0;              /* no seed: the first sums set the threshold */

  for (n = 0; n < max_matches; n++) {
    p->n_taken = n;
    p->threshold = UINT64_MAX;
    seed (p, k->small_map, smw, smh, shrink);
    kconv_team_run (p->n_threads, scan_part, p);
    KMatchPosition best = { -1, -1, UINT64_MAX };
    for (int t = 0; t < p->n_threads; t++)
      if (p->best[t].x >= 0 && before (p->best[t].x, p->best[t].y,
              p->best[t].sad, &best))
        best = p->best[t];
    if (best.x < 0)
      break;
    out[n] = best;
  }
out:
  free (p->best);
  free (p);
  return n;
}
