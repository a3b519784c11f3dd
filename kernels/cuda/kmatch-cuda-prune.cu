/* kconv: template matching on CUDA, the bounds that prune the search
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Successive elimination: over a block of the template, the sum of
 * |F - T| is at least |sum F - sum T|, so the blocks' differences of sums
 * bound a position's SAD from below.  One pass gives the frame's block sums
 * at every position (column sums slid down the rows, a prefix sum across
 * each row in shared memory), the next each group of 4 x 4 positions' least
 * bound, as a key (bound, y, x) that keeps the tie rule, from up to 16 block
 * sums a position (64 with transparency).  The position with the least key
 * is then summed exactly: its key (SAD, y, x) is at least the best's, and
 * a group whose least key exceeds it cannot hold the best.  On natural
 * images almost every group is ruled out that way, and on flat ones too
 * (every position ties with the first: only the first's group is left);
 * the exact search skips the groups that are (kmatch-cuda.cu).  The
 * groups left are listed, so that where they are few a block of threads
 * can sum each.
 */
#include <stdio.h>
#include <string.h>
#include "kmatch-cuda-prune.h"
#include "kconv-error.h"

#define BOX_THREADS 128             /* each holds the column sums of 4 bytes */
#define BOX_BYTES (4 * BOX_THREADS) /* a block's row of bytes */
#define BOX_ROWS 16                 /* rows of sums a block slides over */
#define GROUP_THREADS 128

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
  /* a block's row and a row of its sums fit the box pass's row of bytes
   * (a narrower block bounds less, never wrongly) */
  if (pb->bw > KMATCH_PRUNE_MAX_BLOCK_BYTES / ch)
    pb->bw = KMATCH_PRUNE_MAX_BLOCK_BYTES / ch;
  /* blocks side by side start at multiples of 4 pixels: the bounds read
   * four sums at once */
  if (nbx > 1)
    pb->bw &= ~3;
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

/* bs[y * bs_pitch + x]: the samples of the bw x bh pixels from (x, y), for
 * the block's tx_max sums from x0 on each of BOX_ROWS rows.  A thread holds
 * the column sums of 4 bytes (slid down a row at a time); the block's
 * inclusive prefix sum across them gives each sum as one difference. */
template <int CH>
__global__ void
__launch_bounds__ (BOX_THREADS)
    box_sums (const uint8_t *__restrict__ f, int pitch, int bw, int bh,
        int tx_max, int w, int rows, uint32_t *__restrict__ bs, int bs_pitch)
{
  __shared__ uint32_t prefix[2][BOX_BYTES + 1]; /* [0] stays 0 */
  __shared__ uint32_t warp_sum[2][BOX_THREADS / 32];
  const int x0 = blockIdx.x * tx_max, y0 = blockIdx.y * BOX_ROWS;
  const int tx = min (tx_max, w - x0), ty = min (BOX_ROWS, rows - y0);
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const bool mine = t < ((tx + bw - 1) * CH + 3) / 4;
  const size_t pw = pitch / 4;
  /* x0 * CH is a multiple of 4: tx_max is */
  const uint32_t *src =
      (const uint32_t *) (f + (size_t) y0 * pitch) + x0 * CH / 4 + t;
  /* the words each row brings in and takes out, loaded at once (the
   * loop's latency is then the shared memory's) */
  uint32_t in[BOX_ROWS], out[BOX_ROWS];
#pragma unroll
  for (int y = 1; y < BOX_ROWS; y++)
    if (mine && y < ty) {
      in[y] = __ldg (src + (y - 1 + bh) * pw);
      out[y] = __ldg (src + (y - 1) * pw);
    }
  uint32_t c[4] = { 0, 0, 0, 0 };
  for (int j = 0; mine && j < bh; j++) {
    const uint32_t v = __ldg (src + j * pw);
#pragma unroll
    for (int k = 0; k < 4; k++)
      c[k] += v >> 8 * k & 0xff;
  }
  if (t == 0)
    prefix[0][0] = prefix[1][0] = 0;
#pragma unroll
  for (int y = 0; y < BOX_ROWS; y++) {
    if (y >= ty)
      break;
    if (y > 0 && mine) {
#pragma unroll
      for (int k = 0; k < 4; k++)
        c[k] += (in[y] >> 8 * k & 0xff) - (out[y] >> 8 * k & 0xff);
    }
    uint32_t p[4];
    p[0] = c[0];
#pragma unroll
    for (int k = 1; k < 4; k++)
      p[k] = p[k - 1] + c[k];
    uint32_t s = p[3];
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
      const uint32_t n = __shfl_up_sync (0xffffffffu, s, o);
      s += lane >= o ? n : 0;
    }
    /* two buffers: a row's are read while the next row's are written */
    uint32_t *pre = prefix[y & 1], *ws = warp_sum[y & 1];
    if (lane == 31)
      ws[warp] = s;
    __syncthreads ();
    uint32_t before = s - p[3];
    for (int k = 0; k < warp; k++)
      before += ws[k];
#pragma unroll
    for (int k = 0; k < 4; k++)
      pre[1 + 4 * t + k] = before + p[k];
    __syncthreads ();
    uint32_t *o = bs + (size_t) (y0 + y) * bs_pitch + x0;
    for (int x = t; x < tx; x += BOX_THREADS)
      o[x] = pre[(x + bw) * CH] - pre[x * CH];
  }
}

/* Each group of 4 x 4 positions' least bound as a key (bound, y, x), and
 * the least of all in *least.  The blocks' x offsets and the sums' pitch
 * are multiples of 4 (kmatch_prune_blocks, sums_extent), so a row's four
 * sums are one 16-byte load. */
__global__ void
__launch_bounds__ (GROUP_THREADS) group_bounds (const uint32_t *__restrict__ bs,
    int bs_pitch, int mw, int mh, KMatchPruneBlocks pb,
    uint64_t *__restrict__ group_least, unsigned long long *least)
{
  const int gw = (mw + 3) / 4;
  const int gx = blockIdx.x * GROUP_THREADS + threadIdx.x, gy = blockIdx.y;
  unsigned long long key = ~0ull;
  if (gx < gw) {
    /* rows past the last read the last's sums (and columns past the last
     * the sums' padding), and are left out */
    int ys[4];
#pragma unroll
    for (int r = 0; r < 4; r++)
      ys[r] = min (4 * gy + r, mh - 1);
    uint32_t b[4][4] = {};
    for (int i = 0; i < pb.n; i++) {
      const uint32_t *at =
          bs + (size_t) pb.dy[i] * bs_pitch + pb.dx[i] + 4 * gx;
      const uint32_t sum = pb.sum[i];
#pragma unroll
      for (int r = 0; r < 4; r++) {
        const uint4 v =
            __ldg ((const uint4 *) (at + (size_t) ys[r] * bs_pitch));
        const uint32_t s[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
        for (int k = 0; k < 4; k++)
          b[r][k] += s[k] > sum ? s[k] - sum : sum - s[k];
      }
    }
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
      for (int k = 0; k < 4; k++)
        if (4 * gx + k < mw && 4 * gy + r < mh) {
          const unsigned long long kk =
              (unsigned long long) b[r][k] << 32 |
              (unsigned long long) (4 * gy + r) << 16 | (4 * gx + k);
          key = kk < key ? kk : key;
        }
    group_least[(size_t) gy * gw + gx] = key;
  }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin (least, key);
}

#define EXACT_THREADS 256

/* The key (SAD, y, x) of the position in *least, added into *thresh (0
 * before): a warp a row, each block's rows' sum added at once (a block
 * for the whole template waited on its loads one row after another) */
__global__ void
__launch_bounds__ (EXACT_THREADS)
    sad_at_least (const uint8_t *__restrict__ f, int pitch, int ch,
        const uint8_t *__restrict__ t, const uint8_t *__restrict__ mask, int tw,
        int th, const unsigned long long *least, unsigned long long *thresh)
{
  __shared__ uint32_t part[EXACT_THREADS / 32];
  const unsigned long long k = *least;
  const int x = (int) (k & 0xffff), y = (int) ((k >> 16) & 0xffff);
  const int wb = tw * ch, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int j = blockIdx.x * (EXACT_THREADS / 32) + warp;
  uint32_t s = 0;
  if (j < th) {
    const uint8_t *fr = f + (size_t) (y + j) * pitch + x * ch;
    const uint8_t *tr = t + (size_t) j * wb;
    const uint8_t *mr = mask ? mask + (size_t) j * wb : NULL;
    for (int b = lane; b < wb; b += 32) {
      const int d = abs ((int) __ldg (fr + b) - (int) __ldg (tr + b));
      s += mr ? d & __ldg (mr + b) : d;
    }
  }
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_down_sync (0xffffffffu, s, o);
  if (lane == 0)
    part[warp] = s;
  __syncthreads ();
  if (threadIdx.x == 0) {
    uint32_t total = 0;
    for (int i = 0; i < EXACT_THREADS / 32; i++)
      total += part[i];
    /* the sum fits the high word; the first block adds the place */
    atomicAdd (thresh, (unsigned long long) total << 32 |
                           (blockIdx.x == 0 ? k & 0xffffffffu : 0));
  }
}

#define LIST_THREADS 256

/* The groups whose least key is at most *thresh, listed (a warp's at
 * once): left[0] counts them all, left[1 ..] holds the first cap. */
__global__ void
__launch_bounds__ (LIST_THREADS)
    list_left (const uint64_t *__restrict__ group_least, int n,
        const uint64_t *thresh, uint32_t *left, uint32_t cap)
{
  const int g = blockIdx.x * LIST_THREADS + threadIdx.x;
  const bool alive = g < n && group_least[g] <= *thresh;
  const unsigned ballot = __ballot_sync (0xffffffffu, alive);
  if (!ballot)
    return;
  const int lane = threadIdx.x & 31;
  uint32_t base = 0;
  if (lane == 0)
    base = atomicAdd (left, __popc (ballot));
  base = __shfl_sync (0xffffffffu, base, 0);
  const uint32_t at = base + __popc (ballot & ((1u << lane) - 1));
  if (alive && at < cap)
    left[1 + at] = (uint32_t) g;
}

/* The block sums' extent: every x and row a bound reads, and the pitch
 * of their rows (a multiple of 4, with room for the reads of a last group
 * past the last position). */
static void
sums_extent (const KMatchPruneBlocks *pb, int mw, int mh, int *w, int *rows,
    int *pitch)
{
  *w = mw;
  *rows = mh;
  for (int i = 0; i < pb->n; i++) {
    *w = mw + pb->dx[i] > *w ? mw + pb->dx[i] : *w;
    *rows = mh + pb->dy[i] > *rows ? mh + pb->dy[i] : *rows;
  }
  *pitch = (*w + 3 + 3) / 4 * 4;
}

size_t
kmatch_prune_groups (int mw, int mh)
{
  return (size_t) ((mw + 3) / 4) * ((mh + 3) / 4);
}

/* The groups' keys, then the list of those left, then the sums (each
 * aligned for 16-byte loads) */
static size_t
groups_bytes (int mw, int mh)
{
  return (sizeof (uint64_t) * kmatch_prune_groups (mw, mh) + 255) / 256 * 256;
}

static size_t
left_bytes (int mw, int mh)
{
  return (sizeof (uint32_t) * (1 + kmatch_prune_groups (mw, mh)) + 255) / 256 *
         256;
}

size_t
kmatch_prune_scratch_bytes (const KMatchPruneBlocks *pb, int mw, int mh)
{
  int w, rows, pitch;
  sums_extent (pb, mw, mh, &w, &rows, &pitch);
  return groups_bytes (mw, mh) + left_bytes (mw, mh) +
         sizeof (uint32_t) * pitch * rows;
}

KConvStatus
kmatch_prune_queue (const KMatchPruneBlocks *pb, const uint8_t *frame,
    int pitch, int ch, int mw, int mh, int tw, int th, const uint8_t *tmpl,
    const uint8_t *mask, uint8_t *scratch, const uint64_t **group_least,
    unsigned long long *key, uint64_t *thresh, const uint32_t **left,
    uint32_t left_cap, cudaStream_t stream)
{
  int w, rows, pitch_s;
  sums_extent (pb, mw, mh, &w, &rows, &pitch_s);
  const int gw = (mw + 3) / 4, gh = (mh + 3) / 4;
  uint64_t *groups = (uint64_t *) scratch;
  uint32_t *list = (uint32_t *) (scratch + groups_bytes (mw, mh));
  uint32_t *bs = (uint32_t *) ((uint8_t *) list + left_bytes (mw, mh));
  *group_least = groups;
  *left = list;

  /* the sums a block makes: its bytes cover them and the block's width */
  const int tx_max = (BOX_BYTES / ch - pb->bw + 1) / 4 * 4;
  KCONV_CUDA_CHECK (cudaMemsetAsync (key, 0xff, sizeof *key, stream));
  KCONV_CUDA_CHECK (cudaMemsetAsync (list, 0, sizeof *list, stream));
  KCONV_CUDA_CHECK (cudaMemsetAsync (thresh, 0, sizeof *thresh, stream));
  const dim3 box ((w + tx_max - 1) / tx_max, (rows + BOX_ROWS - 1) / BOX_ROWS);
  if (ch == 1)
    box_sums<1><<<box, BOX_THREADS, 0, stream>>> (frame, pitch, pb->bw, pb->bh,
        tx_max, w, rows, bs, pitch_s);
  else
    box_sums<3><<<box, BOX_THREADS, 0, stream>>> (frame, pitch, pb->bw, pb->bh,
        tx_max, w, rows, bs, pitch_s);
  group_bounds<<<dim3 ((gw + GROUP_THREADS - 1) / GROUP_THREADS, gh),
      GROUP_THREADS, 0, stream>>> (bs, pitch_s, mw, mh, *pb, groups, key);
  const int warps = EXACT_THREADS / 32;
  sad_at_least<<<(th + warps - 1) / warps, EXACT_THREADS, 0, stream>>> (frame,
      pitch, ch, tmpl, mask, tw, th, key, (unsigned long long *) thresh);
  const int n = gw * gh;
  list_left<<<(n + LIST_THREADS - 1) / LIST_THREADS, LIST_THREADS, 0,
      stream>>> (groups, n, thresh, list, left_cap);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}
