/* kconv: template matching on the CPU, threaded and vectorised
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include "kmatch-cpu.h"
#include "kconv-team.h"
#include "kmatch-sad.h"

KMATCH_MULTIVERSION static void
map_rows (const uint8_t * frame, ptrdiff_t stride, const uint8_t * tmpl,
    const uint8_t * mask, int tw, int th, int ch, int mw, int y0, int y1,
    uint64_t * map)
{
  const int n = tw * ch;
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < mw; x++) {
      const uint8_t *f = frame + (ptrdiff_t) y * stride + x * ch;
      uint64_t s = 0;
      for (int j = 0; j < th; j++)
        s += mask ? kmatch_sad_row_masked (f + (ptrdiff_t) j * stride,
            tmpl + (size_t) j * n, mask + (size_t) j * n, n) :
            kmatch_sad_row (f + (ptrdiff_t) j * stride, tmpl + (size_t) j * n,
            n);
      map[(size_t) y * mw + x] = s;
    }
}

typedef struct
{
  const uint8_t *frame;
  ptrdiff_t stride;
  const uint8_t *tmpl, *mask;
  int tw, th, ch, mw, mh;
  uint64_t *map;
} MapJob;

/* interleaved blocks of 8 rows: every thread gets its share of any region */
static void
map_part (int t, int n, void *ctx)
{
  const MapJob *j = ctx;
  for (int y0 = 8 * t; y0 < j->mh; y0 += 8 * n)
    map_rows (j->frame, j->stride, j->tmpl, j->mask, j->tw, j->th, j->ch,
        j->mw, y0, y0 + 8 < j->mh ? y0 + 8 : j->mh, j->map);
}

void
kmatch_cpu_map (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh,
    uint64_t * map, const uint8_t * byte_mask, int n_threads)
{
  MapJob j = { frame, stride, tmpl, byte_mask, tw, th, ch, mw, mh, map };
  kconv_team_run (n_threads, map_part, &j);
}

typedef struct
{
  uint8_t *dst;
  const uint8_t *src;
  ptrdiff_t stride;
  int ps, ch, luma, w, h;
  const int *off;
} PackJob;

/* Luma of a row of pixels ps bytes apart (same formula as
 * kmatch_rgb_luma); 3- and 4-byte pixels spelt out so that the compiler
 * vectorises the gather. */
#define LUMA_ROW(PS) \
  for (int x = 0; x < w; x++) \
    d[x] = (uint8_t) ((77 * s[x * (PS) + o0] + 150 * s[x * (PS) + o1] + \
            29 * s[x * (PS) + o2] + 128) >> 8)

KMATCH_MULTIVERSION static void
luma_row (uint8_t * restrict d, const uint8_t * restrict s, int w, int ps,
    int o0, int o1, int o2)
{
  if (ps == 4)
    LUMA_ROW (4);
  else if (ps == 3)
    LUMA_ROW (3);
  else
    LUMA_ROW (ps);
}

static void
pack_part (int t, int n, void *ctx)
{
  const PackJob *j = ctx;
  int y0, y1;
  kconv_band (j->h, t, n, &y0, &y1);
  const int ps = j->ps, o0 = j->off[0];
  const int o1 = j->ch > 1 || j->luma ? j->off[1] : 0;
  const int o2 = j->ch > 2 || j->luma ? j->off[2] : 0;
  for (int y = y0; y < y1; y++) {
    const uint8_t *s = j->src + (ptrdiff_t) y * j->stride;
    uint8_t *d = j->dst + (size_t) y * j->w * j->ch;
    if (j->luma)
      luma_row (d, s, j->w, ps, o0, o1, o2);
    else if (j->ch == 1) {
      for (int x = 0; x < j->w; x++)
        d[x] = s[x * ps + o0];
    } else {
      for (int x = 0; x < j->w; x++) {
        d[3 * x] = s[x * ps + o0];
        d[3 * x + 1] = s[x * ps + o1];
        d[3 * x + 2] = s[x * ps + o2];
      }
    }
  }
}

void
kmatch_cpu_pack (uint8_t * dst, const uint8_t * src, ptrdiff_t stride,
    int pixel_stride, const int *offsets, int ch, int luma, int w, int h,
    int n_threads)
{
  PackJob j = { dst, src, stride, pixel_stride, luma ? 1 : ch, luma, w, h,
    offsets
  };
  /* a small region is not worth waking threads for */
  int threads = (size_t) w * h < 65536 ? 1 : n_threads < h ? n_threads : h;
  kconv_team_run (threads, pack_part, &j);
}
