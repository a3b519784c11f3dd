/* kconv: the ssd, ncc and zncc searches of 16-bit samples on CUDA
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The region is staged as values (kmatch-cuda-deep.cu).  The sum of F T at
 * every position is made through the FFT in double precision (cuFFT): the
 * region's spectrum times those of the template's high and low bytes, each
 * transformed back and rounded (F T = 256 F T_hi + F T_lo), exact where the
 * transform's error bound, worked out from the sizes and the depth, stays
 * under 0.25.  Elsewhere (no cuFFT, or a bound over it) it is summed
 * directly in double precision, where it is exact too: every product is
 * under 2^32 and every sum under 2^53 (templates of at most 2^21 pixels),
 * and a fused multiply-add rounds nothing then; each thread sums XS
 * neighbouring positions of RS rows, walking down the frame rows they
 * cover with a window of XS values in registers, and each template value
 * it reads (shared memory, a broadcast) meets XS of them.
 * The box sums of F and F^2 are exact 64-bit column sums, then windows of
 * tw of them along each row.  Every position is scored by the core's
 * formulas (kmatch-methods.c) in the same double arithmetic with the same
 * roundings (each operation on its own: no fused multiply-add), so the
 * least score is the host's; the picks (the least score, then y, then x,
 * none overlapping one picked before) come back with their exact sums,
 * which the host scores.
 */
#include <math.h>
#include <cuda_runtime.h>
#include "kmatch-cuda-deep-private.h"
#include "kconv-cuda.h"
#include "kconv-cuda-fft.h"
#include "kconv-error.h"
#include "kconv-plan.h"
#include "kconv-tuning.h"

#define THREADS 128
#define XS 4        /* positions a thread sums along a row */
#define RS 8        /* and down a column */
#define COL_ROWS 32 /* rows a thread's column sums slide down */
#define SEG 32      /* positions a thread's window sums slide along */
#define SMEM_DOUBLES (48 * 1024 / 8)
#define PICK_THREADS 256
#define PICK_PER_THREAD 8 /* positions a thread of the picks looks at */
/* the most the FFT's error may be, by its bound, for the sums to round
 * to the exact integers */
#define FFT_BOUND 0.25
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

/* (score, index), the least score first, then the least index (y * mw +
 * x: the smallest y, then x) */
__device__ __forceinline__ double2
better (double2 a, double2 b)
{
  return b.x < a.x || (b.x == a.x && b.y < a.y) ? b : a;
}

/* The best of a block's PICK_THREADS candidates (for every thread) */
__device__ double2
block_best (double2 b)
{
  __shared__ double2 best[PICK_THREADS];
  best[threadIdx.x] = b;
  __syncthreads ();
  for (int o = PICK_THREADS / 2; o > 0; o /= 2) {
    if (threadIdx.x < o)
      best[threadIdx.x] = better (best[threadIdx.x], best[threadIdx.x + o]);
    __syncthreads ();
  }
  return best[0];
}

/* Each block's best free position (not overlapping the n_picks picked),
 * PICK_PER_THREAD positions a thread, reduced in shared memory */
__global__ void
__launch_bounds__ (PICK_THREADS)
    block_best_kernel (const double *__restrict__ scores, size_t cells, int mw,
        const int2 *__restrict__ picks, int n_picks, int tw, int th,
        double2 *blocks)
{
  double2 b = make_double2 (INFINITY, INFINITY);
  const size_t base = (size_t) blockIdx.x * PICK_THREADS * PICK_PER_THREAD;
  for (int k = 0; k < PICK_PER_THREAD; k++) {
    const size_t i = base + (size_t) k * PICK_THREADS + threadIdx.x;
    if (i < cells &&
        !overlaps_pick ((int) (i % mw), (int) (i / mw), picks, n_picks, tw, th))
      b = better (b, make_double2 (scores[i], (double) i));
  }
  b = block_best (b);
  if (threadIdx.x == 0)
    blocks[blockIdx.x] = b;
}

/* The best of the blocks' bests: the pick k (or none), with the frame's
 * sums there */
__global__ void
__launch_bounds__ (PICK_THREADS)
    take_pick_kernel (const double2 *__restrict__ blocks, int n_blocks,
        const uint64_t *__restrict__ col, int rw, int mw, int mh, int tw,
        const double *__restrict__ ft, int2 *picks, int k, KMatchSums *sums)
{
  double2 b = make_double2 (INFINITY, INFINITY);
  for (int i = threadIdx.x; i < n_blocks; i += PICK_THREADS)
    b = better (b, blocks[i]);
  const double2 best = block_best (b);
  if (threadIdx.x != 0)
    return;
  if (!(best.y < INFINITY)) {
    sums[k].x = -1;
    picks[k] = make_int2 (-1 << 20, -1 << 20);
    return;
  }
  const size_t at = (size_t) best.y;
  const int y = (int) (at / mw), x = (int) (at % mw);
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
  s.ft = (uint64_t) ft[at];
  s.f2 = f2;
  s.f[0] = f;
  sums[k] = s;
  picks[k] = make_int2 (x, y);
}

/* ---- the correlation through the FFT ---- */

/* The region's values (or a template's bytes: shifted, masked) at the
 * origin of a zero plane of nx x ny */
__global__ void
fft_lay_kernel (const uint16_t *__restrict__ values, int pitch, int w, int h,
    int shift, unsigned mask, double *plane, int nx, int ny)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= nx || y >= ny)
    return;
  plane[(size_t) y * nx + x] =
      x < w && y < h
          ? (double) ((values[(size_t) y * pitch + x] >> shift) & mask)
          : 0.0;
}

/* The region's spectrum times the high and the low byte's */
__global__ void
fft_products_kernel (const double2 *spec, const double2 *khi,
    const double2 *klo, double2 *hi, double2 *lo, size_t n)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const double2 s = spec[i], a = khi[i], b = klo[i];
  hi[i] = make_double2 (s.x * a.x - s.y * a.y, s.x * a.y + s.y * a.x);
  lo[i] = make_double2 (s.x * b.x - s.y * b.y, s.x * b.y + s.y * b.x);
}

/* ft = 256 round (hi) + round (lo), at the mw x mh positions */
__global__ void
fft_combine_kernel (const double *hi, const double *lo, int nx, int mw, int mh,
    double *ft)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= mw || y >= mh)
    return;
  const size_t at = (size_t) y * nx + x;
  ft[(size_t) y * mw + x] =
      (double) (256 * (uint64_t) llrint (hi[at]) + (uint64_t) llrint (lo[at]));
}

static void
fft_release (KMatchCudaDeep *d)
{
  const KConvCufft *cf = kconv_cuda_cufft ();
  if (d->have_plans && cf) {
    cf->destroy (d->fwd);
    cf->destroy (d->inv);
  }
  d->have_plans = 0;
  cudaFree (d->d_real);
  cudaFree (d->d_real2);
  cudaFree (d->d_spec);
  cudaFree (d->d_spec2);
  cudaFree (d->d_kspec);
  d->d_real = d->d_real2 = NULL;
  d->d_spec = d->d_spec2 = d->d_kspec = NULL;
  d->nx = d->ny = 0;
}

/* Plans and buffers for nx x ny, and the template's bytes' spectra */
static KConvStatus
fft_prepare (KMatchCudaDeep *d, const KConvCufft *cf, int nx, int ny)
{
  const size_t plane = (size_t) nx * ny, cplane = (size_t) (nx / 2 + 1) * ny;
  if (nx != d->nx || ny != d->ny) {
    fft_release (d);
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_real, plane * sizeof (double)));
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_real2, plane * sizeof (double)));
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_spec, cplane * sizeof (double2)));
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_spec2, cplane * sizeof (double2)));
    KCONV_CUDA_CHECK (cudaMalloc (&d->d_kspec, 2 * cplane * sizeof (double2)));
    if (kconv_cuda_fft_plans (nx, ny, 1, &d->fwd, &d->inv) != CUFFT_SUCCESS)
      return kconv_fail (KCONV_ERROR_DEVICE, "cufftPlanMany (%dx%d)", nx, ny);
    d->have_plans = 1;
    d->nx = nx;
    d->ny = ny;
    d->kspec_generation = d->generation - 1;
  }
  cf->set_stream (d->fwd, d->stream);
  cf->set_stream (d->inv, d->stream);
  if (d->kspec_generation == d->generation)
    return KCONV_OK;
  /* the template's high bytes, then its low ones */
  const dim3 grid ((nx + 255) / 256, ny);
  for (int half = 0; half < 2; half++) {
    fft_lay_kernel<<<grid, 256, 0, d->stream>>> (d->d_tmpl, d->tw, d->tw, d->th,
        half ? 0 : 8, 0xff, d->d_real, nx, ny);
    KCONV_CUDA_CHECK (cudaGetLastError ());
    if (cf->exec_d2z (d->fwd, d->d_real, (cufftDoubleComplex *) d->d_spec) !=
        CUFFT_SUCCESS)
      return kconv_fail (KCONV_ERROR_DEVICE, "cufftExecD2Z (template)");
    KCONV_TRY (kconv_cuda_fft_conjugate (d->d_spec, d->d_kspec + half * cplane,
        cplane, 1.0 / (double) plane, d->stream));
  }
  d->kspec_generation = d->generation;
  return KCONV_OK;
}

/* Whether the FFT's sums round to the exact ones: a bound on its error,
 * from the sizes and the largest value (2^-53 times a generous multiple
 * of log2 of the size, times the norms of the region and of a byte
 * kernel), under FFT_BOUND */
static int
fft_exact (int nx, int ny, int rw, int rh, int tw, int th, int depth)
{
  const double maxv = (double) ((1u << depth) - 1);
  const double bound = ldexp (1.0, -53) * 16 * log2 ((double) nx * ny) *
                       sqrt ((double) rw * rh) * maxv *
                       sqrt ((double) tw * th) * 255;
  return bound < FFT_BOUND;
}

/* ft by the FFT: 1 and *st, or 0 where it cannot be used */
static int
correlate_fft (KMatchCudaDeep *d, int pitch, int mw, int mh, int depth,
    KConvStatus *st)
{
  const KConvCufft *cf = kconv_cuda_cufft ();
  const int rw = mw + d->tw - 1, rh = mh + d->th - 1;
  const int nx = kconv_fft_size (rw), ny = kconv_fft_size (rh);
  if (!cf || kconv_tuning ().cuda_match_fft == 0 ||
      !fft_exact (nx, ny, rw, rh, d->tw, d->th, depth))
    return 0;
  if ((*st = fft_prepare (d, cf, nx, ny)) != KCONV_OK)
    return 1;
  const size_t cplane = (size_t) (nx / 2 + 1) * ny;
  const dim3 grid ((nx + 255) / 256, ny);
  fft_lay_kernel<<<grid, 256, 0, d->stream>>> (d->d_values, pitch, rw, rh, 0,
      0xffff, d->d_real, nx, ny);
  if (cf->exec_d2z (d->fwd, d->d_real, (cufftDoubleComplex *) d->d_spec) !=
      CUFFT_SUCCESS) {
    *st = kconv_fail (KCONV_ERROR_DEVICE, "cufftExecD2Z (frame)");
    return 1;
  }
  fft_products_kernel<<<(unsigned) ((cplane + 255) / 256), 256, 0,
      d->stream>>> (d->d_spec, d->d_kspec, d->d_kspec + cplane, d->d_spec,
      d->d_spec2, cplane);
  if (cf->exec_z2d (d->inv, (cufftDoubleComplex *) d->d_spec, d->d_real) !=
          CUFFT_SUCCESS ||
      cf->exec_z2d (d->inv, (cufftDoubleComplex *) d->d_spec2, d->d_real2) !=
          CUFFT_SUCCESS) {
    *st = kconv_fail (KCONV_ERROR_DEVICE, "cufftExecZ2D");
    return 1;
  }
  fft_combine_kernel<<<dim3 ((mw + 255) / 256, mh), 256, 0,
      d->stream>>> (d->d_real, d->d_real2, nx, mw, mh, d->d_ft);
  *st = kconv_cuda_status (cudaGetLastError (), "the FFT's kernels");
  return 1;
}

void
kmatch_cuda_deep_scored_release (KMatchCudaDeep *d)
{
  cudaFree (d->d_tmpl_f64);
  cudaFree (d->d_ft);
  cudaFree (d->d_col);
  cudaFree (d->d_scores);
  cudaFree (d->d_blocks);
  cudaFree (d->d_sums);
  cudaFree (d->d_picks);
  if (d->h_sums)
    cudaFreeHost (d->h_sums);
  d->d_tmpl_f64 = d->d_ft = d->d_scores = NULL;
  d->d_col = NULL;
  d->d_blocks = NULL;
  d->d_sums = d->h_sums = NULL;
  d->d_picks = NULL;
  d->picks_cap = 0;
  d->tmpl_f64_size = d->ft_size = d->col_size = d->scores_size = 0;
  d->blocks_size = 0;
  fft_release (d);
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
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_ft, &d->ft_size,
      cells * sizeof (double)));
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_scores, &d->scores_size,
      cells * sizeof (double)));
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_col, &d->col_size,
      2 * (size_t) rw * mh * sizeof (uint64_t)));
  const int n_blocks = (int) ((cells + PICK_THREADS * PICK_PER_THREAD - 1) /
                              (PICK_THREADS * PICK_PER_THREAD));
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_blocks, &d->blocks_size,
      n_blocks * sizeof (double2)));
  KCONV_TRY (grow_picks (d, max_matches));
  int pitch;
  KCONV_TRY (kmatch_cuda_deep_stage (d, frame, stride, on_device, words, mw, mh,
      &pitch));

  KConvStatus st = KCONV_OK;
  if (!correlate_fft (d, pitch, mw, mh, words->depth, &st)) {
    if (d->tmpl_f64_generation != d->generation || !d->d_tmpl_f64) {
      KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_tmpl_f64,
          &d->tmpl_f64_size, tpix * sizeof (double)));
      template_f64_kernel<<<(unsigned) ((tpix + 255) / 256), 256, 0,
          d->stream>>> (d->d_tmpl, (int) tpix, d->d_tmpl_f64);
      KCONV_CUDA_CHECK (cudaGetLastError ());
      d->tmpl_f64_generation = d->generation;
    }
    const bool staged = tpix <= SMEM_DOUBLES;
    const dim3 grid ((mw + THREADS * XS - 1) / (THREADS * XS),
        (mh + RS - 1) / RS);
    (staged ? corr_kernel<true> : corr_kernel<false>) <<<grid, THREADS,
        staged ? tpix * sizeof (double) : 0, d->stream>>> (d->d_values, pitch,
        mw, mh, d->d_tmpl_f64, tw, th, d->d_ft);
    st = kconv_cuda_status (cudaGetLastError (), "corr_kernel");
  }
  KCONV_TRY (st);
  column_sums_kernel<<<dim3 ((rw + 127) / 128, (mh + COL_ROWS - 1) / COL_ROWS),
      128, 0, d->stream>>> (d->d_values, pitch, rw, mh, th, d->d_col);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  score_kernel<<<dim3 ((mw + 64 * SEG - 1) / (64 * SEG), mh), 64, 0,
      d->stream>>> (d->d_col, rw, mw, mh, tw, d->d_ft, *sc, d->d_scores);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  for (int k = 0; k < max_matches; k++) {
    block_best_kernel<<<n_blocks, PICK_THREADS, 0, d->stream>>> (d->d_scores,
        cells, mw, d->d_picks, k, tw, th, d->d_blocks);
    take_pick_kernel<<<1, PICK_THREADS, 0, d->stream>>> (d->d_blocks, n_blocks,
        d->d_col, rw, mw, mh, tw, d->d_ft, d->d_picks, k, d->d_sums);
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
