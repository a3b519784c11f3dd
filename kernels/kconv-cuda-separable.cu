/* kconv: separable (rank-1) convolution on CUDA, both passes in one kernel
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A block stages its source tile in shared memory, runs the horizontal taps
 * into a second shared tile (output width, tile height plus the vertical
 * halo), then the vertical taps out of it with the same sliding register
 * window as the direct kernel.  Only 8-bit pixels cross device memory.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"

#define SEP_ROWS 8

size_t
kconv_cuda_separable_smem (int nch, int cols, int rows)
{
  size_t tile_h = KCONV_CUDA_BLOCK_ROWS * SEP_ROWS + rows - 1;
  size_t raw = (size_t) (KCONV_CUDA_TILE_W + cols - 1) * tile_h;
  size_t mid = (size_t) KCONV_CUDA_TILE_W * (tile_h + SEP_ROWS);
  return (size_t) nch * (raw + mid) * sizeof (float);
}

template < int NCH > __global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W * KCONV_CUDA_BLOCK_ROWS)
separable_kernel (const KConvCudaJob job, const KConvCudaWeights hv)
{
  extern __shared__ float smem[];
  const int out_h = KCONV_CUDA_BLOCK_ROWS * SEP_ROWS;
  const int tile_h = out_h + job.rows - 1;
  const int raw_pitch = KCONV_CUDA_TILE_W + job.cols - 1;
  const int raw_plane = raw_pitch * tile_h;
  const int mid_plane = KCONV_CUDA_TILE_W * (tile_h + SEP_ROWS);
  float *raw = smem;
  float *mid = smem + NCH * raw_plane;
  const float *h = hv.w, *v = hv.w + job.cols;
  const int x0 = blockIdx.x * KCONV_CUDA_TILE_W;
  const int y0 = blockIdx.y * out_h;
  const int tx = threadIdx.x;

  kconv_cuda_load_tile (job, raw, NCH, x0 - job.ax, y0 - job.ay, raw_pitch,
      tile_h, raw_plane);
  __syncthreads ();

  /* horizontal: each thread one column, rows strided by the block height */
  for (int row = threadIdx.y; row < tile_h; row += KCONV_CUDA_BLOCK_ROWS) {
#pragma unroll
    for (int c = 0; c < NCH; c++) {
      const float *s = raw + c * raw_plane + row * raw_pitch + tx;
      float a = 0.f;
      for (int k = 0; k < job.cols; k++)
        a = fmaf (h[k], s[k], a);
      mid[c * mid_plane + row * KCONV_CUDA_TILE_W + tx] = a;
    }
  }
  __syncthreads ();

  /* vertical: ROWS outputs a thread, sliding window down the column */
  const int ty0 = threadIdx.y * SEP_ROWS;
  float acc[NCH][SEP_ROWS];
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    const float *col = mid + c * mid_plane + tx;
#pragma unroll
    for (int r = 0; r < SEP_ROWS; r++)
      acc[c][r] = 0.f;
    float win[SEP_ROWS];
#pragma unroll
    for (int r = 0; r < SEP_ROWS; r++)
      win[r] = col[(ty0 + r) * KCONV_CUDA_TILE_W];
    int ky = 0;
    for (; ky + SEP_ROWS <= job.rows; ky += SEP_ROWS) {
      float nxt[SEP_ROWS];
#pragma unroll
      for (int r = 0; r < SEP_ROWS; r++)
        nxt[r] = col[(ty0 + ky + SEP_ROWS + r) * KCONV_CUDA_TILE_W];
#pragma unroll
      for (int j = 0; j < SEP_ROWS; j++) {
        const float wj = v[ky + j];
#pragma unroll
        for (int r = 0; r < SEP_ROWS; r++)
          acc[c][r] = fmaf (wj, r + j < SEP_ROWS ? win[r + j] :
              nxt[r + j - SEP_ROWS], acc[c][r]);
      }
#pragma unroll
      for (int r = 0; r < SEP_ROWS; r++)
        win[r] = nxt[r];
    }
    for (int j = 0; ky + j < job.rows; j++) {
      const float wj = v[ky + j];
#pragma unroll
      for (int r = 0; r < SEP_ROWS; r++)
        acc[c][r] = fmaf (wj, col[(ty0 + ky + j + r) * KCONV_CUDA_TILE_W],
            acc[c][r]);
    }
  }

  const int x = x0 + tx;
  if (x >= job.width)
    return;
#pragma unroll
  for (int r = 0; r < SEP_ROWS; r++) {
    const int y = y0 + ty0 + r;
    if (y >= job.height)
      return;
    uint8_t out[NCH];
#pragma unroll
    for (int c = 0; c < NCH; c++)
      out[c] = kconv_cuda_finish (job, acc[c][r]);
    kconv_cuda_store_pixel < NCH > (job, x, y, out);
  }
}

template < int NCH > static cudaError_t
launch_separable (const KConvCudaJob & job, const KConvCudaWeights * hv,
    cudaStream_t stream)
{
  size_t smem = kconv_cuda_separable_smem (NCH, job.cols, job.rows);
  cudaError_t err = cudaFuncSetAttribute (separable_kernel < NCH >,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
  if (err != cudaSuccess)
    return err;
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_div_up (job.height, KCONV_CUDA_BLOCK_ROWS * SEP_ROWS));
  separable_kernel < NCH > <<< grid, block, smem, stream >>> (job, *hv);
  return cudaGetLastError ();
}

cudaError_t
kconv_cuda_launch_separable (const KConvCudaJob * job,
    const KConvCudaWeights * hv, cudaStream_t stream)
{
  switch (job->n_channels) {
    case 1:
      return launch_separable < 1 > (*job, hv, stream);
    case 2:
      return launch_separable < 2 > (*job, hv, stream);
    case 3:
      return launch_separable < 3 > (*job, hv, stream);
    case 4:
      return launch_separable < 4 > (*job, hv, stream);
    default:
      return cudaErrorInvalidValue;
  }
}
