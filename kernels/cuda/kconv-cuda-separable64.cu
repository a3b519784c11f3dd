/* kconv: separable kernels on 8-byte pixels (RGBA64, BGRA64), every word
 * from one read
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The general separable kernel (kconv-cuda-separable.cu) takes a channel
 * at a time: on four-word pixels it loads and converts its tile once per
 * channel, and its horizontal pass covers the vertical halo too.  ncu on
 * an H100 (4K RGBA64 gaussian 31x31): 67% of the SM's issue, 8.6% of DRAM,
 * 0.346 ms, 4.9 times the 8-bit time.  Here the vertical pass comes first,
 * straight from device memory: a thread owns one pixel column of the
 * block's window, reads each source pixel once (one 8-byte load, every
 * word), and makes S64_ROWS outputs of each word.  The columns' results
 * wait in shared memory; the horizontal pass reads them two floats at a
 * time and makes S64_RUN neighbouring outputs of a row.  Only the
 * block's own output rows are ever filtered horizontally.
 *
 * Tap counts are fixed at compile time (5 classes up to 31; a kernel runs
 * in the smallest class that holds it, padded with zero weights), so that
 * every weight is an operand from the constant bank and every loop is
 * unrolled away.  Outputs go through shared memory once more, so that a
 * warp writes whole rows.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-cuda-words64.cuh"
#include "kconv-error.h"

#define S64_THREADS 256
#define S64_ROWS 16 /* output rows a block; a column thread makes them all */
#define S64_RUN 14  /* neighbouring outputs a thread makes along a row */
#define S64_SEGS (S64_THREADS / S64_ROWS) /* threads along a row: 16 */
#define S64_TILE_W (S64_SEGS * S64_RUN)   /* output columns a block: 224 */

/* The tap classes, smallest first: a kernel takes the first that holds its
 * rows and its columns. */
static const int s64_classes[] = { 7, 11, 15, 21, 31 };

template <int T>
struct Sep64Weights
{
  float h[T], v[T]; /* the kernel's, at offsets ph and pv, zeros around */
  int ax, ay;       /* the anchor in the padded kernel */
};

template <int T>
struct Sep64Shape
{
  static constexpr int halo = T - 1;
  static constexpr int cols = S64_TILE_W + halo; /* the vertical pass's */
  static constexpr int pitch = (cols + 1) & ~1;  /* float2 reads */
  static constexpr int plane = S64_ROWS * pitch;
};

static inline __host__ __device__ size_t
sep64_smem_of (int halo, int nch)
{
  const int pitch = (S64_TILE_W + halo + 1) & ~1;
  return (size_t) nch * S64_ROWS * pitch * sizeof (float);
}

template <int T, int NCH, bool FULL>
__global__ void
__launch_bounds__ (S64_THREADS)
    separable64_kernel (const KConvCudaJob job, const Sep64Weights<T> w)
{
  using S = Sep64Shape<T>;
  extern __shared__ float mid[];                   /* [NCH][S64_ROWS][pitch] */
  __shared__ long long row_at[S64_ROWS + S::halo]; /* -1: outside */
  const int t = threadIdx.x;
  const int x0 = blockIdx.x * S64_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * S64_ROWS;

  if (t < S64_ROWS + S::halo) {
    const int sy = kconv_border_index (job.border, y0 - w.ay + t, job.height);
    row_at[t] = sy < 0 ? -1 : (long long) sy * job.src_stride;
  }
  __syncthreads ();

  /* vertical: a source pixel feeds up to S64_ROWS outputs of each word */
  if (t < S::cols) {
    const int sx = kconv_border_index (job.border, x0 - w.ax + t, job.width);
    const uint8_t *column = job.src + (size_t) (sx < 0 ? 0 : sx) * 8;
    float acc[NCH][S64_ROWS];
#pragma unroll
    for (int r = 0; r < S64_ROWS; r++)
#pragma unroll
      for (int c = 0; c < NCH; c++)
        acc[c][r] = 0.f;
#pragma unroll
    for (int j = 0; j < S64_ROWS + S::halo; j++) {
      const long long at = row_at[j];
      const uint2 p = sx >= 0 && at >= 0 ? __ldg ((const uint2 *) (column + at))
                                         : make_uint2 (0, 0);
      float f[NCH];
      kconv_cuda_words64_to_float<NCH, FULL> (job, p, f);
#pragma unroll
      for (int r = 0; r < S64_ROWS; r++)
        if (j - r >= 0 && j - r < T)
#pragma unroll
          for (int c = 0; c < NCH; c++)
            acc[c][r] = fmaf (w.v[j - r], f[c], acc[c][r]);
    }
#pragma unroll
    for (int c = 0; c < NCH; c++)
#pragma unroll
      for (int r = 0; r < S64_ROWS; r++)
        mid[c * S::plane + r * S::pitch + t] = acc[c][r];
  }
  __syncthreads ();

  /* horizontal: S64_RUN outputs of a row; a half-warp reads one row, its
   * 16 starts 14 floats apart land on 16 different bank pairs */
  const int seg = t % S64_SEGS, row = t / S64_SEGS;
  uint32_t out[S64_RUN][2];
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    const float2 *in =
        (const float2 *) (mid + c * S::plane + row * S::pitch + seg * S64_RUN);
    float a[S64_RUN];
#pragma unroll
    for (int r = 0; r < S64_RUN; r++)
      a[r] = 0.f;
#pragma unroll
    for (int j2 = 0; j2 < (S64_RUN + S::halo + 1) / 2; j2++) {
      const float2 s = in[j2];
#pragma unroll
      for (int e = 0; e < 2; e++)
#pragma unroll
        for (int r = 0; r < S64_RUN; r++) {
          const int k = 2 * j2 + e - r;
          if (k >= 0 && k < T)
            a[r] = fmaf (w.h[k], e ? s.y : s.x, a[r]);
        }
    }
#pragma unroll
    for (int r = 0; r < S64_RUN; r++) {
      const uint32_t q = (uint32_t) kconv_cuda_finish<true> (job, a[r])
                         << job.shift;
      if (c % 2 == 0)
        out[r][c / 2] = q;
      else
        out[r][c / 2] |= q << 16;
    }
  }
  __syncthreads (); /* every thread is done reading mid */

  /* the tile's pixels through shared memory, so that a warp writes rows */
  uint2 *tile = (uint2 *) mid; /* [S64_ROWS][S64_TILE_W] */
#pragma unroll
  for (int r = 0; r < S64_RUN; r++)
    tile[row * S64_TILE_W + seg * S64_RUN + r] =
        make_uint2 (out[r][0], out[r][1]);
  __syncthreads ();
#pragma unroll 2
  for (int i = t; i < S64_ROWS * S64_TILE_W; i += S64_THREADS) {
    const int x = x0 + i % S64_TILE_W, y = y0 + i / S64_TILE_W;
    if (x >= job.width || y >= job.row_end)
      continue;
    uint2 o = tile[i];
    if (NCH == 3) /* word 3 (alpha) is the source's */
      o.y = (o.y & 0xffffu) |
            (__ldg ((const uint2 *) (job.src + (size_t) y * job.src_stride +
                                     (size_t) x * 8))
                    .y &
                0xffff0000u);
    *(uint2 *) (job.dst + (size_t) y * job.dst_stride + (size_t) x * 8) = o;
  }
}

/* The smallest class that holds the kernel, or 0 */
static int
sep64_class (int cols, int rows)
{
  for (int t : s64_classes)
    if (cols <= t && rows <= t)
      return t;
  return 0;
}

int
kconv_cuda_separable64_fits (const KConvCudaJob *job)
{
  /* the words convolved: 0 .. n - 1 in some order (alpha, when kept, is
   * word 3: RGBA64 and BGRA64) */
  uint32_t words = 0;
  for (int c = 0; c < job->n_channels; c++)
    words |= job->channel_offset[c] % 2 == 0
                 ? 1u << (job->channel_offset[c] / 2)
                 : 0x100u;
  const bool three = words == 0x7 && job->copy_other_bytes;
  return job->depth > 8 && job->pixel_stride == 8 && job->aligned8 &&
         !job->big_endian && (words == 0xf || three) &&
         sep64_class (job->cols, job->rows) != 0;
}

template <int T, int NCH, bool FULL>
static cudaError_t
launch_as (const KConvCudaJob &job, const float *h, const float *v,
    cudaStream_t stream)
{
  Sep64Weights<T> w = {};
  const int ph = (T - job.cols) / 2, pv = (T - job.rows) / 2;
  for (int k = 0; k < job.cols; k++)
    w.h[ph + k] = h[k];
  for (int k = 0; k < job.rows; k++)
    w.v[pv + k] = v[k];
  w.ax = job.ax + ph;
  w.ay = job.ay + pv;
  const size_t smem = sep64_smem_of (T - 1, NCH);
  static KConvCudaSmemAllowed raised;
  cudaError_t err =
      kconv_cuda_allow_smem (separable64_kernel<T, NCH, FULL>, smem, &raised);
  if (err != cudaSuccess)
    return err;
  dim3 grid (kconv_div_up (job.width, S64_TILE_W),
      kconv_cuda_grid_rows (job, S64_ROWS));
  separable64_kernel<T, NCH, FULL>
      <<<grid, S64_THREADS, smem, stream>>> (job, w);
  return cudaGetLastError ();
}

template <int T>
static cudaError_t
launch_class (const KConvCudaJob &job, const float *h, const float *v,
    cudaStream_t stream)
{
  const bool full = job.depth == 16 && job.shift == 0;
  if (job.n_channels == 4)
    return full ? launch_as<T, 4, true> (job, h, v, stream)
                : launch_as<T, 4, false> (job, h, v, stream);
  return full ? launch_as<T, 3, true> (job, h, v, stream)
              : launch_as<T, 3, false> (job, h, v, stream);
}

KConvStatus
kconv_cuda_launch_separable64 (const KConvCudaJob *job,
    const KConvCudaWeights *hv, cudaStream_t stream)
{
  const float *h = hv->w, *v = hv->w + job->cols;
  cudaError_t err;
  switch (sep64_class (job->cols, job->rows)) {
  case 7:
    err = launch_class<7> (*job, h, v, stream);
    break;
  case 11:
    err = launch_class<11> (*job, h, v, stream);
    break;
  case 15:
    err = launch_class<15> (*job, h, v, stream);
    break;
  case 21:
    err = launch_class<21> (*job, h, v, stream);
    break;
  case 31:
    err = launch_class<31> (*job, h, v, stream);
    break;
  default:
    err = cudaErrorInvalidValue;
  }
  return kconv_cuda_status (err, "kconv_cuda_launch_separable64");
}
