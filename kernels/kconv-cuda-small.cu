/* kconv: small kernels (up to 8x8) on CUDA, straight from the L1 cache
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For a few taps per pixel, staging a tile in shared memory costs more
 * instructions than the convolution itself.  Here each thread owns a column
 * of ROWS output pixels: for each kernel column it reads the ROWS + rows - 1
 * source pixels it needs (whole 4-byte pixels where it can; the cache serves
 * neighbouring threads), widens each channel once, and slides them past the
 * kernel rows in registers.  No shared memory, no barrier.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"

#define SMALL_ROWS 4
#define SMALL_MAX 8             /* rows and cols */

/* WORDS: 4-byte aligned pixels, read whole */
template < int NCH, bool WORDS > __global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W * KCONV_CUDA_BLOCK_ROWS)
small_kernel (const KConvCudaJob job, const KConvCudaWeights pw)
{
  const int x = blockIdx.x * KCONV_CUDA_TILE_W + threadIdx.x;
  const int y0 = (blockIdx.y * KCONV_CUDA_BLOCK_ROWS + threadIdx.y) *
      SMALL_ROWS;
  if (x >= job.width || y0 >= job.height)
    return;
  const int cols = job.cols, rows = job.rows;

  /* source rows this thread reads, border applied once (-1: zeros) */
  int row[SMALL_ROWS + SMALL_MAX - 1];
#pragma unroll
  for (int i = 0; i < SMALL_ROWS + SMALL_MAX - 1; i++) {
    int sy = i < SMALL_ROWS + rows - 1 ?
        kconv_cuda_border_index (job.border, y0 - job.ay + i, job.height) : -1;
    row[i] = sy < 0 ? -1 : sy * job.src_stride;
  }

  float acc[NCH][SMALL_ROWS];
#pragma unroll
  for (int c = 0; c < NCH; c++)
#pragma unroll
    for (int r = 0; r < SMALL_ROWS; r++)
      acc[c][r] = 0.f;

  for (int kx = 0; kx < cols; kx++) {
    const int sx = kconv_cuda_border_index (job.border, x - job.ax + kx,
        job.width);
    const uint8_t *col = job.src + (sx < 0 ? 0 : sx) * job.pixel_stride;
    float v[NCH][SMALL_ROWS + SMALL_MAX - 1];
#pragma unroll
    for (int i = 0; i < SMALL_ROWS + SMALL_MAX - 1; i++) {
      if (i < SMALL_ROWS + rows - 1) {  /* uniform: only the rows reached */
        const bool in = row[i] >= 0 && sx >= 0;
        if (WORDS) {
          const uint32_t w = in ? __ldg ((const uint32_t *) (col + row[i])) :
              0u;
#pragma unroll
          for (int c = 0; c < NCH; c++)
            v[c][i] = kconv_cuda_u8_to_float ((w >> (8 *
                        job.channel_offset[c])) & 0xffu);
        } else {
#pragma unroll
          for (int c = 0; c < NCH; c++)
            v[c][i] = kconv_cuda_u8_to_float (in ?
                __ldg (col + row[i] + job.channel_offset[c]) : 0u);
        }
      } else {
#pragma unroll
        for (int c = 0; c < NCH; c++)
          v[c][i] = 0.f;
      }
    }
#pragma unroll
    for (int j = 0; j < SMALL_MAX; j++) {
      if (j < rows) {
        const float wj = pw.w[j * cols + kx];
#pragma unroll
        for (int c = 0; c < NCH; c++)
#pragma unroll
          for (int r = 0; r < SMALL_ROWS; r++)
            acc[c][r] = fmaf (wj, v[c][r + j], acc[c][r]);
      }
    }
  }

#pragma unroll
  for (int r = 0; r < SMALL_ROWS; r++) {
    const int y = y0 + r;
    if (y >= job.height)
      return;
    uint8_t out[NCH];
#pragma unroll
    for (int c = 0; c < NCH; c++)
      out[c] = kconv_cuda_finish (job, acc[c][r]);
    kconv_cuda_store_pixel < NCH > (job, x, y, out);
  }
}

int
kconv_cuda_small_fits (int cols, int rows)
{
  return cols <= SMALL_MAX && rows <= SMALL_MAX;
}

template < int NCH > static cudaError_t
launch_small (const KConvCudaJob & job, const KConvCudaWeights * pw,
    cudaStream_t stream)
{
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_div_up (job.height, KCONV_CUDA_BLOCK_ROWS * SMALL_ROWS));
  if (job.pixel_stride == 4 && job.aligned4)
    small_kernel < NCH, true > <<< grid, block, 0, stream >>> (job, *pw);
  else
    small_kernel < NCH, false > <<< grid, block, 0, stream >>> (job, *pw);
  return cudaGetLastError ();
}

cudaError_t
kconv_cuda_launch_small (const KConvCudaJob * job,
    const KConvCudaWeights * pw, cudaStream_t stream)
{
  switch (job->n_channels) {
    case 1:
      return launch_small < 1 > (*job, pw, stream);
    case 2:
      return launch_small < 2 > (*job, pw, stream);
    case 3:
      return launch_small < 3 > (*job, pw, stream);
    case 4:
      return launch_small < 4 > (*job, pw, stream);
    default:
      return cudaErrorInvalidValue;
  }
}
