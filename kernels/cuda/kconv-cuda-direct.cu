/* kconv: direct 2D convolution on CUDA
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A block stages its source tile (output tile plus the kernel's halo) in
 * shared memory as floats, one plane per channel.  Each thread owns one
 * column of ROWS outputs in every channel: for each kernel column it slides
 * a window of ROWS samples down the tile, so a sample read from shared
 * memory feeds up to ROWS multiply-adds and a weight NCH * ROWS of them,
 * all in registers.  Neighbouring threads read neighbouring addresses: no
 * bank conflicts.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define DIRECT_ROWS 8

/* PITCH > 0: the tile's row pitch, fixed at compile time so that every
 * shared-memory address is a register plus a constant; 0: taken at run
 * time (kernels wider than PITCH - 31).  DEEP: 16-bit samples. */
template <int NCH, int ROWS, int PITCH, bool PARAM_WEIGHTS, bool DEEP>
__global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W *KCONV_CUDA_BLOCK_ROWS)
    direct_kernel (const KConvCudaJob job, const KConvCudaWeights pw,
        const float *__restrict__ gw)
{
  extern __shared__ float tile[];
  const int tile_h = KCONV_CUDA_BLOCK_ROWS * ROWS;
  const int cols = job.cols, rows = job.rows;
  const int pitch = PITCH > 0 ? PITCH : KCONV_CUDA_TILE_W + cols - 1;
  const int rows_in = tile_h + rows - 1 + ROWS; /* + window overrun */
  const int plane = pitch * rows_in;
  const int x0 = blockIdx.x * KCONV_CUDA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * tile_h;

  kconv_cuda_load_tile<KConvPlainLayout, -1, DEEP> (job, tile, NCH, x0 - job.ax,
      y0 - job.ay, KCONV_CUDA_TILE_W + cols - 1, rows_in - ROWS, plane,
      KConvPlainLayout{ pitch });
  __syncthreads ();

  const int tx = threadIdx.x, ty0 = threadIdx.y * ROWS;
  float acc[NCH][ROWS];
#pragma unroll
  for (int c = 0; c < NCH; c++)
#pragma unroll
    for (int r = 0; r < ROWS; r++)
      acc[c][r] = 0.f;

  for (int kx = 0; kx < cols; kx++) {
    const float *col = tile + (ty0 * pitch + tx + kx);
    /* win: source rows ky .. ky + ROWS - 1 of this thread's column */
    float win[NCH][ROWS], nxt[NCH][ROWS];
#pragma unroll
    for (int c = 0; c < NCH; c++)
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        win[c][r] = col[c * plane + r * pitch];
    int ky = 0;
    for (; ky + ROWS <= rows; ky += ROWS) {
#pragma unroll
      for (int c = 0; c < NCH; c++)
#pragma unroll
        for (int r = 0; r < ROWS; r++)
          nxt[c][r] = col[c * plane + (ky + ROWS + r) * pitch];
#pragma unroll
      for (int j = 0; j < ROWS; j++) {
        const int wi = (ky + j) * cols + kx;
        const float wj = PARAM_WEIGHTS ? pw.w[wi] : __ldg (gw + wi);
#pragma unroll
        for (int c = 0; c < NCH; c++)
#pragma unroll
          for (int r = 0; r < ROWS; r++)
            acc[c][r] = fmaf (wj,
                r + j < ROWS ? win[c][r + j] : nxt[c][r + j - ROWS], acc[c][r]);
      }
#pragma unroll
      for (int c = 0; c < NCH; c++)
#pragma unroll
        for (int r = 0; r < ROWS; r++)
          win[c][r] = nxt[c][r];
    }
    /* the last rem < ROWS kernel rows: the same window, only the samples
     * they reach loaded, indices still fixed at compile time */
    const int rem = rows - ky;
    if (rem > 0) {
#pragma unroll
      for (int c = 0; c < NCH; c++)
#pragma unroll
        for (int r = 0; r < ROWS - 1; r++)
          nxt[c][r] =
              r + 1 < rem ? col[c * plane + (ky + ROWS + r) * pitch] : 0.f;
#pragma unroll
      for (int j = 0; j < ROWS - 1; j++) {
        if (j < rem) {
          const int wi = (ky + j) * cols + kx;
          const float wj = PARAM_WEIGHTS ? pw.w[wi] : __ldg (gw + wi);
#pragma unroll
          for (int c = 0; c < NCH; c++)
#pragma unroll
            for (int r = 0; r < ROWS; r++)
              acc[c][r] =
                  fmaf (wj, r + j < ROWS ? win[c][r + j] : nxt[c][r + j - ROWS],
                      acc[c][r]);
        }
      }
    }
  }

  kconv_cuda_store_column<NCH, ROWS, -1, -1, DEEP> (job, x0 + tx, y0 + ty0,
      acc);
}

/* kernels up to this wide use the compile-time pitch */
#define DIRECT_FIXED_PITCH 64

static int
direct_pitch (int cols)
{
  return cols <= DIRECT_FIXED_PITCH - KCONV_CUDA_TILE_W + 1
             ? DIRECT_FIXED_PITCH
             : KCONV_CUDA_TILE_W + cols - 1;
}

size_t
kconv_cuda_direct_smem (int nch, int cols, int rows)
{
  size_t pitch = direct_pitch (cols);
  size_t rows_in = KCONV_CUDA_BLOCK_ROWS * DIRECT_ROWS + rows - 1 + DIRECT_ROWS;
  return (size_t) nch * pitch * rows_in * sizeof (float);
}

template <int NCH, int PITCH, bool PARAM, bool DEEP>
static cudaError_t
launch_direct (const KConvCudaJob &job, const KConvCudaWeights *pw,
    const float *gw, cudaStream_t stream)
{
  size_t smem = kconv_cuda_direct_smem (NCH, job.cols, job.rows);
  auto fn = direct_kernel<NCH, DIRECT_ROWS, PITCH, PARAM, DEEP>;
  static KConvCudaSmemAllowed raised;
  cudaError_t err = kconv_cuda_allow_smem (fn, smem, &raised);
  if (err != cudaSuccess)
    return err;
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_cuda_grid_rows (job, KCONV_CUDA_BLOCK_ROWS * DIRECT_ROWS));
  fn<<<grid, block, smem, stream>>> (job, *pw, gw);
  return cudaGetLastError ();
}

template <int NCH, bool DEEP>
static cudaError_t
launch_direct_nch (const KConvCudaJob &job, const KConvCudaWeights *pw,
    const float *gw, cudaStream_t stream)
{
  const bool fixed = direct_pitch (job.cols) == DIRECT_FIXED_PITCH;
  if (gw == NULL)
    return fixed ? launch_direct<NCH, DIRECT_FIXED_PITCH, true, DEEP> (job, pw,
                       gw, stream)
                 : launch_direct<NCH, 0, true, DEEP> (job, pw, gw, stream);
  return fixed ? launch_direct<NCH, DIRECT_FIXED_PITCH, false, DEEP> (job, pw,
                     gw, stream)
               : launch_direct<NCH, 0, false, DEEP> (job, pw, gw, stream);
}

template <bool DEEP>

static cudaError_t
launch_any_direct (const KConvCudaJob *job, const KConvCudaWeights *pw,
    const float *gw, cudaStream_t stream)
{
  switch (job->n_channels) {
  case 1:
    return launch_direct_nch<1, DEEP> (*job, pw, gw, stream);
  case 2:
    return launch_direct_nch<2, DEEP> (*job, pw, gw, stream);
  case 3:
    return launch_direct_nch<3, DEEP> (*job, pw, gw, stream);
  case 4:
    return launch_direct_nch<4, DEEP> (*job, pw, gw, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

KConvStatus
kconv_cuda_launch_direct (const KConvCudaJob *job, const KConvCudaWeights *pw,
    const float *gw, cudaStream_t stream)
{
  return kconv_cuda_status (job->depth > 8
                                ? launch_any_direct<true> (job, pw, gw, stream)
                                : launch_any_direct<false> (job, pw, gw,
                                      stream),
      "kconv_cuda_launch_direct");
}
