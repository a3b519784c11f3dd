/* kconv: copying rows of bytes with several threads
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Staging a pageable frame into pinned memory is a plain copy, but one
 * core's copy runs at a fraction of what the memory can do: a 4K RGBA frame
 * takes several milliseconds on one thread.
 */
#include <string.h>
#include "kconv-team.h"

/* Below this, starting threads costs more than it saves. */
#define PARALLEL_MIN_BYTES (256 * 1024)

typedef struct
{
  uint8_t *dst;
  const uint8_t *src;
  ptrdiff_t dst_stride, src_stride;
  size_t row_bytes;
  int rows;
} Copy;

/* contiguous: the block in equal, cache-line aligned parts */
static void
copy_part (int t, int n, void *ctx)
{
  const Copy *c = ctx;
  const size_t total = c->row_bytes * c->rows;
  /* n parts of at least total / n bytes rounded up: they cover it all
   * (rounding total / n down lost up to n - 1 bytes at the end whenever
   * it was already a multiple of 64) */
  const size_t chunk = ((total + n - 1) / n + 63) / 64 * 64;
  const size_t begin = (size_t) t * chunk;
  if (begin < total)
    memcpy (c->dst + begin, c->src + begin,
        begin + chunk <= total ? chunk : total - begin);
}

static void
copy_band (int t, int n, void *ctx)
{
  const Copy *c = ctx;
  int y0, y1;
  kconv_band (c->rows, t, n, &y0, &y1);
  for (int y = y0; y < y1; y++)
    memcpy (c->dst + y * c->dst_stride, c->src + y * c->src_stride,
        c->row_bytes);
}

void
kconv_copy_rows (uint8_t * dst, ptrdiff_t dst_stride, const uint8_t * src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, int n_threads)
{
  Copy c = { dst, src, dst_stride, src_stride, row_bytes, rows };
  int want = row_bytes * rows < PARALLEL_MIN_BYTES ? 1 : n_threads;
  want = want < 1 ? 1 : want < rows ? want : rows;
  void (*part) (int, int, void *) = dst_stride == src_stride
      && (size_t) dst_stride == row_bytes ? copy_part : copy_band;
  kconv_team_run (want, part, &c);
}
