/* kconv: template matching of 16-bit samples on the CPU
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exhaustive and exact.  For each row of positions, template row j meets
 * frame row y + j: each template value is compared with the frame row
 * shifted by its column, across every position at once, so the inner loop
 * runs along the row (contiguous loads, as wide as the vectors allow).  A
 * template row's sum stays in 32 bits (at most 65535 a value), added to
 * the position's 64-bit sum after each row.
 */
#include <stdlib.h>
#include <string.h>
#include "kmatch-cpu.h"
#include "kconv-team.h"
#include "kmatch-sad.h"

/* 65536 values of at most 65535 fit 32 bits */
#define COLUMNS_IN_32_BITS 65536

KMATCH_MULTIVERSION static void
add_column (uint32_t * restrict acc, const uint16_t * restrict f, int32_t t,
    int mw)
{
  for (int x = 0; x < mw; x++) {
    const int32_t d = (int32_t) f[x] - t;
    acc[x] += (uint32_t) (d < 0 ? -d : d);
  }
}

static void
map_row (const uint16_t * frame, ptrdiff_t stride, const uint16_t * tmpl,
    const uint8_t * mask, int tw, int th, int mw, uint32_t * acc,
    uint64_t * out)
{
  memset (out, 0, sizeof *out * (size_t) mw);
  for (int j = 0; j < th; j++) {
    const uint16_t *row = frame + (ptrdiff_t) j * stride;
    for (int i0 = 0; i0 < tw; i0 += COLUMNS_IN_32_BITS) {
      const int i1 = tw - i0 > COLUMNS_IN_32_BITS ? i0 + COLUMNS_IN_32_BITS :
          tw;
      memset (acc, 0, sizeof *acc * (size_t) mw);
      for (int i = i0; i < i1; i++)
        if (!mask || mask[(size_t) j * tw + i])
          add_column (acc, row + i, tmpl[(size_t) j * tw + i], mw);
      for (int x = 0; x < mw; x++)
        out[x] += acc[x];
    }
  }
}

typedef struct
{
  const uint16_t *frame;
  ptrdiff_t stride;
  const uint16_t *tmpl;
  const uint8_t *mask;
  int tw, th, mw, mh;
  uint64_t *map;
  uint32_t *acc;                /* a row of 32-bit sums a thread */
} DeepMapJob;

/* interleaved blocks of 8 rows: every thread gets its share of any region */
static void
map_part (int t, int n, void *ctx)
{
  const DeepMapJob *j = ctx;
  uint32_t *acc = j->acc + (size_t) t * j->mw;
  for (int y0 = 8 * t; y0 < j->mh; y0 += 8 * n)
    for (int y = y0; y < y0 + 8 && y < j->mh; y++)
      map_row (j->frame + (ptrdiff_t) y * j->stride, j->stride, j->tmpl,
          j->mask, j->tw, j->th, j->mw, acc, j->map + (size_t) y * j->mw);
}

int
kmatch_cpu_map_deep (const uint16_t * frame, ptrdiff_t stride,
    const uint16_t * tmpl, const uint8_t * mask, int tw, int th, int mw,
    int mh, uint64_t * map, int n_threads)
{
  const int threads = n_threads > 1 ? n_threads : 1;
  uint32_t *acc = malloc (sizeof *acc * (size_t) mw * threads);
  if (!acc)
    return -1;
  DeepMapJob j = { frame, stride, tmpl, mask, tw, th, mw, mh, map, acc };
  kconv_team_run (threads, map_part, &j);
  free (acc);
  return 0;
}

typedef struct
{
  uint16_t *dst;
  const uint8_t *src;
  ptrdiff_t stride;
  int ps, shift, big_endian, w, h;
  uint16_t max;
} DeepPackJob;

static void
pack_part (int t, int n, void *ctx)
{
  const DeepPackJob *j = ctx;
  int y0, y1;
  kconv_band (j->h, t, n, &y0, &y1);
  const int hi = j->big_endian ? 0 : 1, lo = 1 - hi;
  for (int y = y0; y < y1; y++) {
    const uint8_t *s = j->src + (ptrdiff_t) y * j->stride;
    uint16_t *d = j->dst + (size_t) y * j->w;
    for (int x = 0; x < j->w; x++) {
      const uint8_t *p = s + (ptrdiff_t) x * j->ps;
      d[x] = (uint16_t) ((((unsigned) p[hi] << 8 | p[lo]) >> j->shift) &
          j->max);
    }
  }
}

void
kmatch_cpu_pack_deep (uint16_t * dst, const uint8_t * src, ptrdiff_t stride,
    int pixel_stride, int depth, int shift, int big_endian, int w, int h,
    int n_threads)
{
  DeepPackJob j = { dst, src, stride, pixel_stride, shift, big_endian, w, h,
    (uint16_t) ((1u << depth) - 1)
  };
  /* a small region is not worth waking threads for */
  int threads = (size_t) w * h < 65536 ? 1 : n_threads < h ? n_threads : h;
  kconv_team_run (threads, pack_part, &j);
}
