/* kconv: template matching on CUDA, the bounds that prune the search
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Successive elimination: over a block of the template, the sum of
 * |F - T| is at least |sum F - sum T|, so the blocks' differences of sums
 * bound a position's SAD from below.  The frame's block sums at every
 * position come from two sliding-window passes (rows, then columns), and
 * each position's bound from up to 16 of them (64 with transparency).  The
 * position with the least bound is then summed exactly: its SAD is at
 * least the best, and any position whose bound exceeds it cannot win or
 * tie.  On natural images almost every position is ruled out that way,
 * and the exact search skips the groups of positions that all are
 * (kmatch-cuda.cu).
 */
#include <stdio.h>
#include <string.h>
#include "kmatch-cuda-prune.h"
#include "kconv-error.h"

#define RUN 32 /* outputs one thread slides over */

void
kmatch_prune_blocks (const uint8_t *tmpl, const uint8_t *mask, int tw, int th,
    int ch, KMatchPruneBlocks *pb)
{
  memset (pb, 0, sizeof *pb);
  /* with transparency, smaller blocks: more of them lie wholly inside the
   * part that counts */
  const int most = mask ? 8 : 4;
  const int nbx = tw / 16 < 1 ? 1 : tw / 16 > most ? most : tw / 16;
  const int nby = th / 16 < 1 ? 1 : th / 16 > most ? most : th / 16;
  pb->bw = tw / nbx;
  pb->bh = th / nby;
  for (int by = 0; by < nby; by++)
    for (int bx = 0; bx < nbx; bx++) {
      uint32_t sum = 0;
      int whole = 1;
      for (int j = by * pb->bh; j < (by + 1) * pb->bh; j++)
        for (int b = bx * pb->bw * ch; b < (bx + 1) * pb->bw * ch; b++) {
          const size_t at = (size_t) j * tw * ch + b;
          sum += tmpl[at];
          whole &= !mask || mask[at] != 0;
        }
      if (!whole)
        continue; /* a transparent pixel: the block bounds nothing */
      pb->dx[pb->n] = bx * pb->bw;
      pb->dy[pb->n] = by * pb->bh;
      pb->sum[pb->n++] = sum;
    }
}

/* rs[y * w + x]: the bw pixels' samples of row y from pixel x. */
__global__ void
row_sums (const uint8_t *__restrict__ f, int pitch, int ch, int bw, int w,
    int rows, uint32_t *__restrict__ rs)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * RUN, y = blockIdx.y;
  if (x0 >= w || y >= rows)
    return;
  const uint8_t *p = f + (size_t) y * pitch;
  const int wb = bw * ch;
  uint32_t s = 0;
  for (int i = 0; i < wb; i++)
    s += p[x0 * ch + i];
  uint32_t *out = rs + (size_t) y * w;
  const int end = x0 + RUN < w ? x0 + RUN : w;
  for (int x = x0;;) {
    out[x] = s;
    if (++x >= end)
      break;
    for (int c = 0; c < ch; c++)
      s += p[(x - 1) * ch + wb + c] - p[(x - 1) * ch + c];
  }
}

/* bs[y * w + x]: rows y .. y + bh - 1 of rs at x. */
__global__ void
column_sums (const uint32_t *__restrict__ rs, int w, int bh, int rows,
    uint32_t *__restrict__ bs)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y0 = blockIdx.y * RUN;
  if (x >= w || y0 >= rows)
    return;
  uint32_t s = 0;
  for (int j = 0; j < bh; j++)
    s += rs[(size_t) (y0 + j) * w + x];
  const int end = y0 + RUN < rows ? y0 + RUN : rows;
  for (int y = y0;;) {
    bs[(size_t) y * w + x] = s;
    if (++y >= end)
      break;
    s += rs[(size_t) (y - 1 + bh) * w + x] - rs[(size_t) (y - 1) * w + x];
  }
}

/* Each position's bound, and the least as a key (bound, y, x) that also
 * keeps the tie rule. */
__global__ void
bounds (const uint32_t *__restrict__ bs, int w, int mw, int mh,
    KMatchPruneBlocks pb, uint32_t *__restrict__ bound,
    unsigned long long *least)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  unsigned long long key = ~0ull;
  if (x < mw && y < mh) {
    uint32_t b = 0;
    for (int i = 0; i < pb.n; i++) {
      const uint32_t s = bs[(size_t) (y + pb.dy[i]) * w + x + pb.dx[i]];
      b += s > pb.sum[i] ? s - pb.sum[i] : pb.sum[i] - s;
    }
    bound[(size_t) y * mw + x] = b;
    key = (unsigned long long) b << 32 | (unsigned long long) y << 16 | x;
  }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin (least, key);
}

#define EXACT_THREADS 256

/* The exact SAD of the position in *least, into *thresh. */
__global__ void
__launch_bounds__ (EXACT_THREADS)
    sad_at_least (const uint8_t *__restrict__ f, int pitch, int ch,
        const uint8_t *__restrict__ t, const uint8_t *__restrict__ mask, int tw,
        int th, const unsigned long long *least, uint32_t *thresh)
{
  __shared__ uint32_t part[EXACT_THREADS / 32];
  const unsigned long long k = *least;
  const int x = (int) (k & 0xffff), y = (int) ((k >> 16) & 0xffff);
  const int wb = tw * ch;
  uint32_t s = 0;
  for (int i = threadIdx.x; i < wb * th; i += EXACT_THREADS) {
    const int j = i / wb, b = i - j * wb;
    const int d = abs ((int) f[(size_t) (y + j) * pitch + x * ch + b] - t[i]);
    s += mask ? d & mask[i] : d;
  }
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_down_sync (0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0)
    part[threadIdx.x / 32] = s;
  __syncthreads ();
  if (threadIdx.x == 0) {
    uint32_t total = 0;
    for (int i = 0; i < EXACT_THREADS / 32; i++)
      total += part[i];
    *thresh = total;
  }
}

/* The sliding sums' width: every x a bound reads. */
static int
sums_width (const KMatchPruneBlocks *pb, int mw)
{
  int w = mw;
  for (int i = 0; i < pb->n; i++)
    w = mw + pb->dx[i] > w ? mw + pb->dx[i] : w;
  return w;
}

size_t
kmatch_prune_scratch_bytes (const KMatchPruneBlocks *pb, int mw, int mh, int tw,
    int th)
{
  const size_t w = sums_width (pb, mw), rows = (size_t) mh + th - 1;
  (void) tw;
  return sizeof (uint32_t) * (2 * w * rows + (size_t) mw * mh);
}

KConvStatus
kmatch_prune_queue (const KMatchPruneBlocks *pb, const uint8_t *frame,
    int pitch, int ch, int mw, int mh, int tw, int th, const uint8_t *tmpl,
    const uint8_t *mask, uint8_t *scratch, uint32_t **bound,
    unsigned long long *key, uint32_t *thresh, cudaStream_t stream)
{
  const int w = sums_width (pb, mw), rows = mh + th - 1;
  /* block sums are needed from rows 0 to the last block's top */
  int bs_rows = mh;
  for (int i = 0; i < pb->n; i++)
    bs_rows = mh + pb->dy[i] > bs_rows ? mh + pb->dy[i] : bs_rows;
  uint32_t *rs = (uint32_t *) scratch;
  uint32_t *bs = rs + (size_t) w * rows;
  *bound = bs + (size_t) w * rows;

  KCONV_CUDA_CHECK (cudaMemsetAsync (key, 0xff, sizeof *key, stream));
  row_sums<<<dim3 ((w + 128 * RUN - 1) / (128 * RUN), rows), 128, 0,
      stream>>> (frame, pitch, ch, pb->bw, w, rows, rs);
  column_sums<<<dim3 ((w + 127) / 128, (bs_rows + RUN - 1) / RUN), 128, 0,
      stream>>> (rs, w, pb->bh, bs_rows, bs);
  bounds<<<dim3 ((mw + 255) / 256, mh), 256, 0, stream>>> (bs, w, mw, mh, *pb,
      *bound, key);
  sad_at_least<<<1, EXACT_THREADS, 0, stream>>> (frame, pitch, ch, tmpl, mask,
      tw, th, key, thresh);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}
