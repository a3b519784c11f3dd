/* kconv: the ssd, ncc and zncc searches on CUDA, after the correlation
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kmatch-cuda.cu correlates the frame with the template (the sum of F T at
 * every position, exact in 64 bits).  Here the box sums of each channel of
 * F and of F^2 under the template are made (column sums over th rows, then
 * windows of tw columns, each sliding), every position is scored by the
 * core's formulas (kmatch-methods.c) in the same double arithmetic with
 * the same roundings (each operation rounded on its own: no fused
 * multiply-add), and the best positions that do not overlap are picked
 * (the smallest score, then y, then x, as the host picks), each with its
 * exact sums so the host reports it as it would have.
 *
 * A row's column sums are read once into shared memory (coalesced), where
 * each thread slides its window along SEG_K positions; with one match
 * asked for, each block keeps its best and one block picks among them, so
 * no map of scores is written.  Templates wider than SEG_TW slide in
 * global memory and every search writes the map.
 */
#include <math.h>
#include <cuda_runtime.h>
#include "kmatch-cuda-methods.h"
#include "kconv-error.h"

#define COL_ROWS 32  /* rows a thread's column sums slide down */
#define WIN_COLS 32  /* positions a thread's window sums slide along */
#define SEG_K 8      /* the same, in shared memory */
#define SEG_TW 384   /* the widest template that slides there */
#define DIRECT_TH 32 /* the tallest whose column sums are made there too */
#define THREADS 128
#define PICK_THREADS 256
#define PICK_BLOCKS 264 /* two a streaming multiprocessor of an H100 */

/* A candidate of the picks: its score, then its index (y * mw + x) */
struct Pick
{
  double score;
  int idx;
};

__device__ __forceinline__ bool
before (const Pick &a, const Pick &b)
{
  return a.score < b.score || (a.score == b.score && a.idx < b.idx);
}

/* The scratch, laid out: column sums (ch + 1 planes of rw x mh, 32 bits),
 * scores (mw x mh), the blocks' candidates and the picks. */
struct Scratch
{
  uint32_t *col;
  double *scores;
  Pick *blocks;
  int2 *picks;
  unsigned *done; /* blocks of score_segment done: 0 between searches */
};

/* A block's best position and its sums (the single match's pick) */
struct Best
{
  double score;
  int idx;
  uint64_t f2, f[3];
};

static size_t
align256 (size_t n)
{
  return (n + 255) / 256 * 256;
}

/* The blocks' bests follow the scores' map, whose room they take when
 * one match is asked for (no map then); as many as fit. */
static int
seg_blocks (int mw, int mh)
{
  return (mw + THREADS * SEG_K - 1) / (THREADS * SEG_K) * mh;
}

static Scratch
scratch_of (void *base, int mw, int mh, int tw, int ch)
{
  Scratch s;
  uint8_t *p = (uint8_t *) base;
  /* first, where it stays whatever the search's sizes */
  s.done = (unsigned *) p;
  p += align256 (sizeof (unsigned));
  const size_t rw = (size_t) mw + tw - 1;
  s.col = (uint32_t *) p;
  p += align256 ((size_t) (ch + 1) * rw * mh * sizeof (uint32_t));
  s.scores = (double *) p;
  const size_t map = (size_t) mw * mh * sizeof (double);
  const size_t bests = (size_t) seg_blocks (mw, mh) * sizeof (Best);
  p += align256 (map > bests ? map : bests);
  s.blocks = (Pick *) p;
  p += align256 (PICK_BLOCKS * sizeof (Pick));
  s.picks = (int2 *) p;
  return s;
}

size_t
kmatch_cuda_methods_scratch (int mw, int mh, int tw, int ch, int max_matches)
{
  const size_t rw = (size_t) mw + tw - 1;
  const size_t map = (size_t) mw * mh * sizeof (double);
  const size_t bests = (size_t) seg_blocks (mw, mh) * sizeof (Best);
  return align256 ((size_t) (ch + 1) * rw * mh * sizeof (uint32_t)) +
         align256 (map > bests ? map : bests) +
         align256 (PICK_BLOCKS * sizeof (Pick)) +
         align256 ((size_t) max_matches * sizeof (int2)) +
         align256 (sizeof (unsigned));
}

/* Column sums over th rows of each channel and of the squares of all:
 * col[c][y][x] for the mh rows positions start on, each thread sliding
 * down COL_ROWS of them.  (th * 3 * 255^2 fits 32 bits for th <= 8192.) */
template <int CH>
__global__ void
column_sums (const uint8_t *__restrict__ frame, int pitch, int rw, int mh,
    int th, uint32_t *__restrict__ col)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = blockIdx.y * COL_ROWS;
  if (x >= rw || y0 >= mh)
    return;
  const size_t plane = (size_t) rw * mh;
  uint32_t s[CH + 1] = {};
  const uint8_t *p = frame + (size_t) y0 * pitch + (size_t) x * CH;
  for (int j = 0; j < th; j++, p += pitch)
#pragma unroll
    for (int c = 0; c < CH; c++) {
      const uint32_t v = p[c];
      s[c] += v;
      s[CH] += v * v;
    }
  const int y1 = min (y0 + COL_ROWS, mh);
  const uint8_t *out = frame + (size_t) y0 * pitch + (size_t) x * CH;
  for (int y = y0;; y++) {
#pragma unroll
    for (int c = 0; c <= CH; c++)
      col[c * plane + (size_t) y * rw + x] = s[c];
    if (y + 1 >= y1)
      break;
    const uint8_t *in = out + (size_t) th * pitch;
#pragma unroll
    for (int c = 0; c < CH; c++) {
      const uint32_t a = in[c], b = out[c];
      s[c] += a - b;
      s[CH] += a * a - b * b;
    }
    out += pitch;
  }
}

/* A position's score from its sums, as kmatch-methods.c's score_row
 * computes it, operation by operation. */
template <int CH>
__device__ __forceinline__ double
score_of (const KMatchScoring &s, uint64_t ft, uint64_t f2, const uint64_t *f)
{
  if (s.method == 1) { /* ssd */
    const uint64_t d = f2 + s.t2 - 2 * ft;
    return __ddiv_rn (__ull2double_rn (d), s.norm);
  }
  if (s.method == 2) { /* ncc */
    double c = f2 && s.t2 ? __ddiv_rn (__ull2double_rn (ft),
                                __dsqrt_rn (__dmul_rn (__ull2double_rn (f2),
                                    __ull2double_rn (s.t2))))
                          : 0.0;
    c = c > 1 ? 1 : c;
    return __dsub_rn (1.0, c);
  }
  int64_t a = (int64_t) s.n * (int64_t) ft, b = (int64_t) s.n * (int64_t) f2;
#pragma unroll
  for (int c = 0; c < CH; c++) {
    a -= (int64_t) f[c] * (int64_t) s.t[c];
    b -= (int64_t) f[c] * (int64_t) f[c];
  }
  const double num = __ll2double_rn (a), vf = __ll2double_rn (b);
  double c =
      vf > 0 && s.vt > 0
          ? __ddiv_rn (num, __dsqrt_rn (__dmul_rn (vf, __ll2double_rn (s.vt))))
          : 0.0;
  c = c > 1 ? 1 : c < -1 ? -1 : c;
  return __ddiv_rn (__dsub_rn (1.0, c), 2.0);
}

/* Every position's score: windows of tw column sums, each thread sliding
 * along WIN_COLS positions of a row. */
template <int CH>
__global__ void
score_positions (const uint32_t *__restrict__ col, int rw, int mw, int mh,
    int tw, const uint64_t *__restrict__ ft, KMatchScoring s,
    double *__restrict__ scores)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * WIN_COLS;
  const int y = blockIdx.y;
  if (x0 >= mw)
    return;
  const size_t plane = (size_t) rw * mh;
  const uint32_t *row = col + (size_t) y * rw;
  uint64_t w[CH + 1] = {};
  for (int i = 0; i < tw; i++)
#pragma unroll
    for (int c = 0; c <= CH; c++)
      w[c] += row[c * plane + x0 + i];
  const int x1 = min (x0 + WIN_COLS, mw);
  for (int x = x0;; x++) {
    const size_t at = (size_t) y * mw + x;
    scores[at] = score_of<CH> (s, ft[at], w[CH], w);
    if (x + 1 >= x1)
      break;
#pragma unroll
    for (int c = 0; c <= CH; c++)
      w[c] += (uint64_t) row[c * plane + x + tw] - row[c * plane + x];
  }
}

__device__ __forceinline__ bool
better (const Best &a, const Best &b)
{
  return a.score < b.score || (a.score == b.score && a.idx < b.idx);
}

/* The block's threads' bests, reduced in best[] to best[0] */
__device__ __forceinline__ void
reduce_best (Best *best)
{
  __syncthreads ();
  for (int half = THREADS / 2; half > 0; half /= 2) {
    if (threadIdx.x < half &&
        better (best[threadIdx.x + half], best[threadIdx.x]))
      best[threadIdx.x] = best[threadIdx.x + half];
    __syncthreads ();
  }
}

/* Where element i of a row segment lies in shared memory: a word left
 * free after every SEG_K, so that the threads of a warp, SEG_K elements
 * apart, read 32 different banks. */
__host__ __device__ __forceinline__ int
skew (int i)
{
  return i + i / SEG_K;
}

/* Every position of a row segment scored from its column sums in shared
 * memory, each thread sliding along SEG_K positions; the map written
 * (scores, with several matches) or each block's best kept.  DIRECT: the
 * column sums are made here from the frame's th rows (short templates:
 * cheaper than a pass of their own). */
template <int CH, bool DIRECT>
__global__ void
__launch_bounds__ (THREADS) score_segment (const uint32_t *__restrict__ col,
    const uint8_t *__restrict__ frame, int fpitch, int th, int rw, int mw,
    int mh, int tw, const uint64_t *__restrict__ ft, KMatchScoring s,
    double *__restrict__ scores, Best *__restrict__ bests, unsigned *done,
    KMatchSums *out, int *found)
{
  extern __shared__ uint32_t seg[];
  __shared__ Best best[THREADS];
  const int x0 = blockIdx.x * THREADS * SEG_K, y = blockIdx.y;
  const int span = min (THREADS * SEG_K + tw - 1, rw - x0);
  const int pitch = skew (THREADS * SEG_K + SEG_TW);
  const size_t plane = (size_t) rw * mh;
  if (DIRECT) {
    /* row by row, every element of the thread's at once: PER loads in
     * flight, not a row's worth of loads one after another */
    constexpr int PER = (THREADS * SEG_K + SEG_TW + THREADS - 1) / THREADS;
    uint32_t sum[PER][CH + 1] = {};
    const uint8_t *row = frame + (size_t) y * fpitch + (size_t) x0 * CH;
    for (int j = 0; j < th; j++, row += fpitch)
#pragma unroll
      for (int m = 0; m < PER; m++) {
        const int i = threadIdx.x + m * THREADS;
        if (i < span)
#pragma unroll
          for (int c = 0; c < CH; c++) {
            const uint32_t v = row[(size_t) i * CH + c];
            sum[m][c] += v;
            sum[m][CH] += v * v;
          }
      }
#pragma unroll
    for (int m = 0; m < PER; m++) {
      const int i = threadIdx.x + m * THREADS;
      if (i < span)
#pragma unroll
        for (int c = 0; c <= CH; c++)
          seg[c * pitch + skew (i)] = sum[m][c];
    }
  } else {
    for (int c = 0; c <= CH; c++) {
      const uint32_t *row = col + c * plane + (size_t) y * rw + x0;
      for (int i = threadIdx.x; i < span; i += THREADS)
        seg[c * pitch + skew (i)] = row[i];
    }
  }
  __syncthreads ();
  Best b = { INFINITY, 0x7fffffff, 0, { 0, 0, 0 } };
  const int i0 = threadIdx.x * SEG_K;
  if (x0 + i0 < mw) {
    uint64_t w[CH + 1] = {};
    for (int i = 0; i < tw; i++)
#pragma unroll
      for (int c = 0; c <= CH; c++)
        w[c] += seg[c * pitch + skew (i0 + i)];
    const int n = min (SEG_K, mw - x0 - i0);
    for (int k = 0;; k++) {
      const size_t at = (size_t) y * mw + x0 + i0 + k;
      const double v = score_of<CH> (s, ft[at], w[CH], w);
      if (scores)
        scores[at] = v;
      if (v < b.score) { /* (the first of equal scores: the leftmost) */
        b.score = v;
        b.idx = (int) at;
        b.f2 = w[CH];
#pragma unroll
        for (int c = 0; c < CH; c++)
          b.f[c] = w[c];
      }
      if (k + 1 >= n)
        break;
#pragma unroll
      for (int c = 0; c <= CH; c++)
        w[c] += (uint64_t) seg[c * pitch + skew (i0 + k + tw)] -
                seg[c * pitch + skew (i0 + k)];
    }
  }
  if (scores)
    return;
  best[threadIdx.x] = b;
  reduce_best (best);
  /* the last block to finish picks among the blocks' bests (one launch
   * fewer than a kernel of its own) and sets the count back for the next
   * search */
  __shared__ bool last;
  const unsigned blocks = gridDim.x * gridDim.y;
  if (threadIdx.x == 0) {
    bests[blockIdx.y * gridDim.x + blockIdx.x] = best[0];
    __threadfence ();
    last = atomicAdd (done, 1u) == blocks - 1;
  }
  __syncthreads ();
  if (!last)
    return;
  __threadfence ();
  b = Best{ INFINITY, 0x7fffffff, 0, { 0, 0, 0 } };
  for (unsigned i = threadIdx.x; i < blocks; i += THREADS) {
    Best o;
    o.score = __ldcg (&bests[i].score);
    o.idx = __ldcg (&bests[i].idx);
    o.f2 = __ldcg ((const unsigned long long *) &bests[i].f2);
#pragma unroll
    for (int c = 0; c < 3; c++)
      o.f[c] = __ldcg ((const unsigned long long *) &bests[i].f[c]);
    if (better (o, b))
      b = o;
  }
  best[threadIdx.x] = b;
  reduce_best (best);
  if (threadIdx.x == 0) {
    b = best[0];
    const bool any = b.idx != 0x7fffffff;
    if (any) {
      KMatchSums r = {};
      r.x = b.idx % mw;
      r.y = b.idx / mw;
      r.ft = ft[b.idx];
      r.f2 = b.f2;
      for (int c = 0; c < 3; c++)
        r.f[c] = b.f[c];
      out[0] = r;
    }
    *found = any ? 1 : 0;
    *done = 0;
  }
}

/* Whether position idx overlaps one of the n picks (tw x th each) */
__device__ __forceinline__ bool
taken (int idx, int mw, int tw, int th, const int2 *picks, int n)
{
  const int x = idx % mw, y = idx / mw;
  for (int k = 0; k < n; k++)
    if (picks[k].x < x + tw && x < picks[k].x + tw && picks[k].y < y + th &&
        y < picks[k].y + th)
      return true;
  return false;
}

/* The best of a warp's picks, in its lane 0 */
__device__ __forceinline__ Pick
warp_best (Pick p)
{
  for (int o = 16; o > 0; o /= 2) {
    Pick q;
    q.score = __shfl_down_sync (0xffffffffu, p.score, o);
    q.idx = __shfl_down_sync (0xffffffffu, p.idx, o);
    if (before (q, p))
      p = q;
  }
  return p;
}

__device__ __forceinline__ Pick
block_best (Pick p)
{
  __shared__ Pick warps[PICK_THREADS / 32];
  p = warp_best (p);
  if ((threadIdx.x & 31) == 0)
    warps[threadIdx.x / 32] = p;
  __syncthreads ();
  if (threadIdx.x < 32)
    p = warp_best (threadIdx.x < PICK_THREADS / 32
                       ? warps[threadIdx.x]
                       : Pick{ INFINITY, 0x7fffffff });
  return p; /* in thread 0 */
}

/* Pick n (picks[0 .. n - 1] made): each block's best position free of
 * them. */
__global__ void
pick_blocks (const double *__restrict__ scores, int mw, int mh, int tw, int th,
    const int2 *__restrict__ picks, int n, Pick *blocks)
{
  Pick p = { INFINITY, 0x7fffffff };
  const int cells = mw * mh;
  for (int i = blockIdx.x * PICK_THREADS + threadIdx.x; i < cells;
       i += gridDim.x * PICK_THREADS) {
    const Pick q = { scores[i], i };
    if (before (q, p) && (n == 0 || !taken (i, mw, tw, th, picks, n)))
      p = q;
  }
  p = block_best (p);
  if (threadIdx.x == 0)
    blocks[blockIdx.x] = p;
}

/* The blocks' best is pick n: (-1, -1) when none is free */
__global__ void
pick_final (const Pick *__restrict__ blocks, int n_blocks, int mw, int2 *picks,
    int n)
{
  Pick p = { INFINITY, 0x7fffffff };
  for (int i = threadIdx.x; i < n_blocks; i += PICK_THREADS)
    if (before (blocks[i], p))
      p = blocks[i];
  p = block_best (p);
  if (threadIdx.x == 0)
    picks[n] = p.idx == 0x7fffffff ? make_int2 (-1, -1)
                                   : make_int2 (p.idx % mw, p.idx / mw);
}

/* The exact sums at each pick (a block each), and how many picks there
 * are (they end at the first that found nothing). */
template <int CH>
__global__ void
sums_at_picks (const uint8_t *__restrict__ frame, int pitch, int mw, int tw,
    int th, const uint64_t *__restrict__ ft, const int2 *__restrict__ picks,
    int max_matches, KMatchSums *out, int *found)
{
  __shared__ unsigned long long total[CH + 1];
  const int k = blockIdx.x;
  const int2 at = picks[k];
  if (threadIdx.x == 0 && k == 0) {
    int n = 0;
    while (n < max_matches && picks[n].x >= 0)
      n++;
    *found = n;
  }
  if (at.x < 0)
    return;
  if (threadIdx.x <= CH)
    total[threadIdx.x] = 0;
  __syncthreads ();
  uint64_t s[CH + 1] = {};
  for (int i = threadIdx.x; i < tw * th; i += blockDim.x) {
    const uint8_t *p = frame + (size_t) (at.y + i / tw) * pitch +
                       (size_t) (at.x + i % tw) * CH;
#pragma unroll
    for (int c = 0; c < CH; c++) {
      s[c] += p[c];
      s[CH] += (uint32_t) p[c] * p[c];
    }
  }
#pragma unroll
  for (int c = 0; c <= CH; c++)
    atomicAdd (&total[c], (unsigned long long) s[c]);
  __syncthreads ();
  if (threadIdx.x == 0) {
    KMatchSums r = {};
    r.x = at.x;
    r.y = at.y;
    r.ft = ft[(size_t) at.y * mw + at.x];
    r.f2 = total[CH];
    for (int c = 0; c < CH; c++)
      r.f[c] = total[c];
    out[k] = r;
  }
}

template <int CH>
static KConvStatus
queue (const KMatchScoring *s, const KMatchCudaMethodsJob *job,
    cudaStream_t stream)
{
  const int rw = job->mw + job->tw - 1;
  Scratch sc = scratch_of (job->scratch, job->mw, job->mh, job->tw, CH);
  const bool segments = job->tw <= SEG_TW;
  const bool direct = segments && job->th <= DIRECT_TH;
  dim3 cgrid ((rw + THREADS - 1) / THREADS,
      (job->mh + COL_ROWS - 1) / COL_ROWS);
  if (!direct)
    column_sums<CH><<<cgrid, THREADS, 0, stream>>> (job->frame, job->pitch, rw,
        job->mh, job->th, sc.col);
  if (segments) {
    /* (with the blocks' bests, under the 48 KB a block has without asking) */
    const size_t smem =
        (size_t) (CH + 1) * skew (THREADS * SEG_K + SEG_TW) * sizeof (uint32_t);
    dim3 grid ((job->mw + THREADS * SEG_K - 1) / (THREADS * SEG_K), job->mh);
    const bool one = job->max_matches == 1;
    (direct ? score_segment<CH, true>
            : score_segment<CH,
                  false>) <<<grid, THREADS, smem, stream>>> (sc.col, job->frame,
        job->pitch, job->th, rw, job->mw, job->mh, job->tw, job->ft, *s,
        one ? NULL : sc.scores, (Best *) sc.scores, sc.done, job->d_sums,
        job->d_found);
    if (one) {
      KCONV_CUDA_CHECK (cudaGetLastError ());
      return KCONV_OK;
    }
  } else {
    const int per_row = (job->mw + WIN_COLS - 1) / WIN_COLS;
    dim3 sgrid ((per_row + THREADS - 1) / THREADS, job->mh);
    score_positions<CH><<<sgrid, THREADS, 0, stream>>> (sc.col, rw, job->mw,
        job->mh, job->tw, job->ft, *s, sc.scores);
  }
  const int cells = job->mw * job->mh;
  int blocks = (cells + PICK_THREADS - 1) / PICK_THREADS;
  blocks = blocks < PICK_BLOCKS ? blocks : PICK_BLOCKS;
  for (int n = 0; n < job->max_matches; n++) {
    pick_blocks<<<blocks, PICK_THREADS, 0, stream>>> (sc.scores, job->mw,
        job->mh, job->tw, job->th, sc.picks, n, sc.blocks);
    pick_final<<<1, PICK_THREADS, 0, stream>>> (sc.blocks, blocks, job->mw,
        sc.picks, n);
  }
  sums_at_picks<CH><<<job->max_matches, THREADS, 0, stream>>> (job->frame,
      job->pitch, job->mw, job->tw, job->th, job->ft, sc.picks,
      job->max_matches, job->d_sums, job->d_found);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}

KConvStatus
kmatch_cuda_methods_queue (const KMatchScoring *s,
    const KMatchCudaMethodsJob *job, cudaStream_t stream)
{
  return s->ch == 3 ? queue<3> (s, job, stream) : queue<1> (s, job, stream);
}
