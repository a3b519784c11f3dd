/* kconv: the ssd, ncc and zncc searches of 16-bit samples on CUDA
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The region is staged as values (kmatch-cuda-deep.cu).  The sum of F T at
 * every position is made in double precision, where it is exact: every
 * product is under 2^32 and every sum under 2^53 (templates of at most
 * 2^21 pixels), and a fused multiply-add rounds nothing then.  Each
 * thread sums XS neighbouring positions of ROWS rows: it walks down the
 * frame rows those positions cover, slides along each with a window of XS
 * values in registers, and each template value it reads (from shared
 * memory, the same for the whole warp: a broadcast) meets XS of them.
 * The box sums of F and F^2 are exact 64-bit column sums, then windows of
 * tw of them along each row.  Every position is scored by the core's
 * formulas (kmatch-methods.c) in the same double arithmetic with the same
 * roundings (each operation on its own: no fused multiply-add), so the
 * least score is the host's; the picks (the least score, then y, then x,
 * none overlapping one picked before) come back with their exact sums,
 * which the host scores.
 */
#include <cuda_runtime.h>
#include "kmatch-cuda-deep-private.h"
#include "kconv-cuda.h"
#include "kconv-error.h"

#define THREADS 128
#define XS 4        /* positions a thread sums along a row */
#define RS 8        /* and down a column */
#define COL_ROWS 32 /* rows a thread's column sums slide down */
#define SEG 32      /* positions a thread's window sums slide along */
#define SMEM_DOUBLES (48 * 1024 / 8)
/* the largest template whose sums of products stay exact in doubles */
#define MAX_PIXELS (1 << 21)

/* The template's values as doubles */
__global__ void
template_f64_kernel (const uint16_t *__restrict__ t, int n, double *out)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (double) t[i];
}

template <bool SMEM>
__global__ void
__launch_bounds__ (THREADS) corr_kernel (const uint16_t *__restrict__ values,
    int pitch, int mw, int mh, const double *__restrict__ tmpl_g, int tw,
    int th, double *__restrict__ ft)
{
  extern __shared__ double staged[];
  const double *tmpl = tmpl_g;
  if (SMEM) {
    for (int i = threadIdx.x; i < tw * th; i += THREADS)
      staged[i] = tmpl_g[i];
    __syncthreads ();
    tmpl = staged;
  }
  const int x0 = (blockIdx.x * THREADS + threadIdx.x) * XS;
  const int y0 = blockIdx.y * RS;
  if (x0 >= mw)
    return;
  double acc[RS][XS];
#pragma unroll
  for (int r = 0; r < RS; r++)
#pragma unroll
    for (int k = 0; k < XS; k++)
      acc[r][k] = 0;
  const int rows = min (th + RS - 1, mh + th - 1 - y0);
  for (int jj = 0; jj < rows; jj++) {
    /* frame row y0 + jj is template row jj - r of positions y0 + r */
    const uint16_t *f = values + (size_t) (y0 + jj) * pitch + x0;
    double win[XS];
#pragma unroll
    for (int k = 0; k < XS - 1; k++)
      win[k + 1] = (double) __ldg (f + k);
    const int r_lo = max (0, jj - th + 1), r_hi = min (RS - 1, jj);
    for (int i = 0; i < tw; i++) {
#pragma unroll
      for (int k = 0; k < XS - 1; k++)
        win[k] = win[k + 1];
      win[XS - 1] = (double) __ldg (f + i + XS - 1);
#pragma unroll
      for (int r = 0; r < RS; r++)
        if (r >= r_lo && r <= r_hi) {
          const double t = tmpl[(jj - r) * tw + i];
#pragma unroll
          for (int k = 0; k < XS; k++)
            acc[r][k] = __fma_rn (win[k], t, acc[r][k]);
        }
    }
  }
#pragma unroll
  for (int r = 0; r < RS; r++)
#pragma unroll
    for (int k = 0; k < XS; k++)
      if (x0 + k < mw && y0 + r < mh)
        ft[(size_t) (y0 + r) * mw + x0 + k] = acc[r][k];
}

/* Column sums over th rows of F and of F^2: planes of rw x mh, each
 * thread sliding down COL_ROWS rows */
__global__ void
column_sums_kernel (const uint16_t *__restrict__ values, int pitch, int rw,
    int mh, int th, uint64_t *__restrict__ col)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = blockIdx.y * COL_ROWS;
  if (x >= rw || y0 >= mh)
    return;
  const size_t plane = (size_t) rw * mh;
  uint64_t s = 0, s2 = 0;
  for (int j = 0; j < th; j++) {
    const uint64_t v = values[(size_t) (y0 + j) * pitch + x];
    s += v;
    s2 += v * v;
  }
  const int y1 = min (y0 + COL_ROWS, mh);
  for (int y = y0;; y++) {
    col[(size_t) y * rw + x] = s;
    col[plane + (size_t) y * rw + x] = s2;
    if (y + 1 >= y1)
      break;
    const uint64_t out = values[(size_t) y * pitch + x];
    const uint64_t in = values[(size_t) (y + th) * pitch + x];
    s += in - out;
    s2 += in * in - out * out;
  }
}

/* A position's score from its sums, as kmatch-methods.c's score_row makes
 * it for one channel and sums that fit 64 bits */
__device__ double
score_of (const KMatchScoring &sc, uint64_t ft, uint64_t f2, uint64_t f)
{
  if (sc.method == 1) { /* ssd */
    const uint64_t d = f2 + sc.t2 - 2 * ft;
    return __ddiv_rn (__ull2double_rn (d), sc.norm);
  }
  if (sc.method == 2) { /* ncc */
    double c = f2 && sc.t2 ? __ddiv_rn (__ull2double_rn (ft),
                                 __dsqrt_rn (__dmul_rn (__ull2double_rn (f2),
                                     __ull2double_rn (sc.t2))))
                           : 0.0;
    c = c > 1 ? 1 : c;
    return __dsub_rn (1.0, c);
  }
  const int64_t a =
      (int64_t) sc.n * (int64_t) ft - (int64_t) f * (int64_t) sc.t[0];
  const int64_t b = (int64_t) sc.n * (int64_t) f2 - (int64_t) f * (int64_t) f;
  const double num = __ll2double_rn (a), vf = __ll2double_rn (b);
  double c =
      vf > 0 && sc.vt > 0
          ? __ddiv_rn (num, __dsqrt_rn (__dmul_rn (vf, __ll2double_rn (sc.vt))))
          : 0.0;
  c = c > 1 ? 1 : c < -1 ? -1 : c;
  return __ddiv_rn (__dsub_rn (1.0, c), 2.0);
}

/* Every position's score: window sums of tw column sums, each thread
 * sliding along SEG positions of a row */
__global__ void
score_kernel (const uint64_t *__restrict__ col, int rw, int mw, int mh, int tw,
    const double *__restrict__ ft, KMatchScoring sc,
    double *__restrict__ scores)
{
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * SEG;
  const int y = blockIdx.y;
  if (x0 >= mw || y >= mh)
    return;
  const uint64_t *cf = col + (size_t) y * rw;
  const uint64_t *cf2 = col + (size_t) rw * mh + (size_t) y * rw;
  uint64_t f = 0, f2 = 0;
  for (int i = 0; i < tw; i++) {
    f += cf[x0 + i];
    f2 += cf2[x0 + i];
  }
  const int x1 = min (x0 + SEG, mw);
  for (int x = x0;; x++) {
    const size_t at = (size_t) y * mw + x;
    scores[at] = score_of (sc, (uint64_t) ft[at], f2, f);
    if (x + 1 >= x1)
      break;
    f += cf[x + tw] - cf[x];
    f2 += cf2[x + tw] - cf2[x];
  }
}

/* Whether position (x, y) overlaps one of the n picks */
__device__ bool
overlaps_pick (int x, int y, const int2 *picks, int n, int tw, int th)
{
  for (int k = 0; k < n; k++)
    if (x < picks[k].x + tw && picks[k].x < x + tw && y < picks[k].y + th &&
        picks[k].y < y + th)
      return true;
  return false;
}

/* keys[0]: the least score (its bits: scores are not negative, so their
 * bits order as they do) over the positions free of the picks */
__global__ void
least_score_kernel (const double *__restrict__ scores, int mw, int mh,
    const int2 *__restrict__ picks, int n_picks, int tw, int th,
    unsigned long long *keys)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  unsigned long long key = ~0ull;
  if (x < mw && y < mh && !overlaps_pick (x, y, picks, n_picks, tw, th))
    key =
        (unsigned long long) __double_as_longlong (scores[(size_t) y * mw + x]);
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin (keys, key);
}

/* keys[1]: the first free position (y << 32 | x) with that score */
__global__ void
first_least_kernel (const double *__restrict__ scores, int mw, int mh,
    const int2 *__restrict__ picks, int n_picks, int tw, int th,
    unsigned long long *keys)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  unsigned long long key = ~0ull;
  if (x < mw && y < mh &&
      (unsigned long long) __double_as_longlong (scores[(size_t) y * mw + x]) ==
          keys[0] &&
      !overlaps_pick (x, y, picks, n_picks, tw, th))
    key = (unsigned long long) y << 32 | (unsigned long long) x;
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin (keys + 1, key);
}

/* The pick found (if any): kept, with the frame's sums there; the keys
 * made ready for the next */
__global__ void
take_pick_kernel (const uint64_t *__restrict__ col, int rw, int mw, int mh,
    int tw, const double *__restrict__ ft, unsigned long long *keys,
    int2 *picks, int k, KMatchSums *sums)
{
  if (threadIdx.x != 0)
    return;
  const unsigned long long key = keys[1];
  keys[0] = keys[1] = ~0ull;
  if (key == ~0ull) {
    sums[k].x = -1;
    return;
  }
  const int y = (int) (key >> 32), x = (int) (key & 0xffffffffu);
  const uint64_t *cf = col + (size_t) y * rw + x;
  const uint64_t *cf2 = col + (size_t) rw * mh + (size_t) y * rw + x;
  uint64_t f = 0, f2 = 0;
  for (int i = 0; i < tw; i++) {
    f += cf[i];
    f2 += cf2[i];
  }
  KMatchSums s = {};
  s.x = x;
  s.y = y;
  s.ft = (uint64_t) ft[(size_t) y * mw + x];
  s.f2 = f2;
  s.f[0] = f;
  sums[k] = s;
  picks[k] = make_int2 (x, y);
}

void
kmatch_cuda_deep_scored_release (KMatchCudaDeep *d)
{
  cudaFree (d->d_tmpl_f64);
  cudaFree (d->d_ft);
  cudaFree (d->d_col);
  cudaFree (d->d_scores);
  cudaFree (d->d_keys);
  cudaFree (d->d_sums);
  cudaFree (d->d_picks);
  if (d->h_sums)
    cudaFreeHost (d->h_sums);
  d->d_tmpl_f64 = d->d_ft = d->d_scores = NULL;
  d->d_col = NULL;
  d->d_keys = NULL;
  d->d_sums = d->h_sums = NULL;
  d->d_picks = NULL;
  d->picks_cap = 0;
  d->tmpl_f64_size = d->ft_size = d->col_size = d->scores_size = 0;
}

/* Room for max_matches picks and their sums */
static KConvStatus
grow_picks (KMatchCudaDeep *d, int max_matches)
{
  if (max_matches <= d->picks_cap)
    return KCONV_OK;
  cudaFree (d->d_sums);
  cudaFree (d->d_picks);
  if (d->h_sums)
    cudaFreeHost (d->h_sums);
  d->d_sums = d->h_sums = NULL;
  d->d_picks = NULL;
  d->picks_cap = 0;
  KCONV_CUDA_CHECK (cudaMalloc (&d->d_sums, max_matches * sizeof (KMatchSums)));
  KCONV_CUDA_CHECK (cudaMalloc (&d->d_picks, max_matches * sizeof (int2)));
  KCONV_CUDA_CHECK (cudaHostAlloc (&d->h_sums,
      max_matches * sizeof (KMatchSums), cudaHostAllocPortable));
  d->picks_cap = max_matches;
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_deep_search_scored (KMatchCudaDeep *d, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaWords *words, int mw,
    int mh, const KMatchScoring *sc, int max_matches, KMatchSums *out, int *n)
{
  *n = 0;
  if (!d->d_tmpl || d->d_keep || sc->ch != 1)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "the GPU's scored "
        "search of 16-bit samples takes one channel and no mask");
  if ((size_t) d->tw * d->th > MAX_PIXELS || mw > 65535 || mh > 65535)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
        "the GPU's scored "
        "search of 16-bit samples takes templates of at most %d pixels "
        "and 65535x65535 positions",
        MAX_PIXELS);
  KCONV_TRY (kconv_cuda_use_device (d->device));
  const int tw = d->tw, th = d->th, rw = mw + tw - 1;
  const size_t cells = (size_t) mw * mh, tpix = (size_t) tw * th;
  if (d->tmpl_f64_generation != d->generation || !d->d_tmpl_f64) {
    KCONV_TRY (kmatch_cuda_deep_grow ((void **) &d->d_tmpl_f64,
        &d->tmpl_f64_size, tpix * sizeof (double)));
    template_f64_kernel<<<(unsigned) ((tpix + 255) / 256), 256, 0,
        d->stream>>> (d->d_tmpl, (int) tpix, d->d_tmpl_f64);
    KCONV_CUDA_CHECK (cudaGetLastError ());
    d->tmpl_f64_generation = d->generation;
  }
  KCONV_TRY (kmatch_cuda_deep_grow ((void **) &d->d_ft, &d->ft_size,
      cells * sizeof (double)));
  KCONV_TRY (kmatch_cuda_deep_grow ((void **) &d->d_scores, &d->scores_size,
      cells * sizeof (double)));
  KCONV_TRY (kmatch_cuda_deep_grow ((void **) &d->d_col, &d->col_size,
      2 * (size_t) rw * mh * sizeof (uint64_t)));
  if (!d->d_keys)
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_keys, 2 * sizeof *d->d_keys));
  KCONV_TRY (grow_picks (d, max_matches));
  int pitch;
  KCONV_TRY (kmatch_cuda_deep_stage (d, frame, stride, on_device, words, mw, mh,
      &pitch));

  const bool staged = tpix <= SMEM_DOUBLES;
  const dim3 grid ((mw + THREADS * XS - 1) / (THREADS * XS),
      (mh + RS - 1) / RS);
  (staged ? corr_kernel<true> : corr_kernel<false>) <<<grid, THREADS,
      staged ? tpix * sizeof (double) : 0, d->stream>>> (d->d_values, pitch, mw,
      mh, d->d_tmpl_f64, tw, th, d->d_ft);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  column_sums_kernel<<<dim3 ((rw + 127) / 128, (mh + COL_ROWS - 1) / COL_ROWS),
      128, 0, d->stream>>> (d->d_values, pitch, rw, mh, th, d->d_col);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  score_kernel<<<dim3 ((mw + 64 * SEG - 1) / (64 * SEG), mh), 64, 0,
      d->stream>>> (d->d_col, rw, mw, mh, tw, d->d_ft, *sc, d->d_scores);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  KCONV_CUDA_CHECK (
      cudaMemsetAsync (d->d_keys, 0xff, 2 * sizeof *d->d_keys, d->stream));
  const dim3 pick_grid ((mw + 255) / 256, mh);
  for (int k = 0; k < max_matches; k++) {
    least_score_kernel<<<pick_grid, 256, 0, d->stream>>> (d->d_scores, mw, mh,
        d->d_picks, k, tw, th, d->d_keys);
    first_least_kernel<<<pick_grid, 256, 0, d->stream>>> (d->d_scores, mw, mh,
        d->d_picks, k, tw, th, d->d_keys);
    take_pick_kernel<<<1, 32, 0, d->stream>>> (d->d_col, rw, mw, mh, tw,
        d->d_ft, d->d_keys, d->d_picks, k, d->d_sums);
  }
  KCONV_CUDA_CHECK (cudaGetLastError ());
  KCONV_CUDA_CHECK (cudaMemcpyAsync (d->h_sums, d->d_sums,
      max_matches * sizeof (KMatchSums), cudaMemcpyDeviceToHost, d->stream));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (d->stream));
  kconv_cuda_count_transfer (0, max_matches * sizeof (KMatchSums));
  for (int k = 0; k < max_matches && d->h_sums[k].x >= 0; k++)
    out[(*n)++] = d->h_sums[k];
  return KCONV_OK;
}
