/* kconv: square kernels of 3, 5 and 7 on CUDA, fixed at compile time
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The general direct kernel spends most of its instructions, at these
 * sizes, on what it cannot know in advance: loop and window bookkeeping,
 * index arithmetic, run-time flags.  Here the kernel size, the channel
 * count, the rounding mode and the pixel layout are template parameters:
 * each thread loads the K + ROWS - 1 samples of a tile column into
 * registers and every weight is a constant-bank operand of its FMA.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define SMALL_PITCH 40 /* 32 + 7 - 1, rounded up */

/* outputs a thread: fewer for 3 or 4 channels, whose accumulators would
 * otherwise leave room for only two blocks a multiprocessor */
#define SMALL_ROWS (NCH >= 3 ? 4 : 8)

template <int NCH, int K, int MODE, int WORDS, bool DEEP>
__global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W *KCONV_CUDA_BLOCK_ROWS)
    small_kernel (const KConvCudaJob job, const KConvCudaWeights pw)
{
  __shared__ float tile[NCH][KCONV_CUDA_BLOCK_ROWS * SMALL_ROWS + K - 1]
                       [SMALL_PITCH];
  const int tile_h = KCONV_CUDA_BLOCK_ROWS * SMALL_ROWS;
  const int x0 = blockIdx.x * KCONV_CUDA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * tile_h;

  kconv_cuda_load_tile<KConvPlainLayout, WORDS, DEEP> (job, &tile[0][0][0], NCH,
      x0 - K / 2, y0 - K / 2, KCONV_CUDA_TILE_W + K - 1, tile_h + K - 1,
      (tile_h + K - 1) * SMALL_PITCH, KConvPlainLayout{ SMALL_PITCH });
  __syncthreads ();

  const int tx = threadIdx.x, ty0 = threadIdx.y * SMALL_ROWS;
  float acc[NCH][SMALL_ROWS];
#pragma unroll
  for (int c = 0; c < NCH; c++)
#pragma unroll
    for (int r = 0; r < SMALL_ROWS; r++)
      acc[c][r] = 0.f;

#pragma unroll
  for (int kx = 0; kx < K; kx++) {
#pragma unroll
    for (int c = 0; c < NCH; c++) {
      float v[SMALL_ROWS + K - 1];
#pragma unroll
      for (int i = 0; i < SMALL_ROWS + K - 1; i++)
        v[i] = tile[c][ty0 + i][tx + kx];
#pragma unroll
      for (int ky = 0; ky < K; ky++)
#pragma unroll
        for (int r = 0; r < SMALL_ROWS; r++)
          acc[c][r] = fmaf (pw.w[ky * K + kx], v[r + ky], acc[c][r]);
    }
  }

  kconv_cuda_store_column<NCH, SMALL_ROWS, MODE, WORDS, DEEP> (job, x0 + tx,
      y0 + ty0, acc);
}

int
kconv_cuda_small_fits (int cols, int rows, int n_channels)
{
  return cols == rows && (cols == 3 || cols == 5 || cols == 7) &&
         n_channels != 2;
}

/* The layout is fixed at compile time only where both occur: grey is
 * always bytes, 4 channels always 4-byte pixels (aligned or not, looked
 * at at run time), 3 channels either RGB or RGBx; 16-bit words (DEEP)
 * are read and written whole, their layout looked at at run time. */
template <int NCH, int K, int MODE>
static cudaError_t
launch_words (const KConvCudaJob &job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_cuda_grid_rows (job, KCONV_CUDA_BLOCK_ROWS * SMALL_ROWS));
  if (job.depth > 8)
    small_kernel<NCH, K, MODE, 0, true><<<grid, block, 0, stream>>> (job, *pw);
  else if (NCH == 1)
    small_kernel<NCH, K, MODE, 0, false><<<grid, block, 0, stream>>> (job, *pw);
  else if (NCH == 4)
    small_kernel<NCH, K, MODE, -1, false>
        <<<grid, block, 0, stream>>> (job, *pw);
  else if (job.pixel_stride == 4 && job.aligned4)
    small_kernel<NCH, K, MODE, 1, false><<<grid, block, 0, stream>>> (job, *pw);
  else
    small_kernel<NCH, K, MODE, 0, false><<<grid, block, 0, stream>>> (job, *pw);
  return cudaGetLastError ();
}

template <int NCH, int K>
static cudaError_t
launch_mode (const KConvCudaJob &job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  switch (kconv_cuda_finish_mode (job)) {
  case KCONV_FINISH_FLOAT:
    return launch_words<NCH, K, KCONV_FINISH_FLOAT> (job, pw, stream);
  case KCONV_FINISH_EXACT_UNIT:
    return launch_words<NCH, K, KCONV_FINISH_EXACT_UNIT> (job, pw, stream);
  default:
    return launch_words<NCH, K, KCONV_FINISH_EXACT> (job, pw, stream);
  }
}

template <int NCH>
static cudaError_t
launch_size (const KConvCudaJob &job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  switch (job.cols) {
  case 3:
    return launch_mode<NCH, 3> (job, pw, stream);
  case 5:
    return launch_mode<NCH, 5> (job, pw, stream);
  default:
    return launch_mode<NCH, 7> (job, pw, stream);
  }
}

static cudaError_t
launch_any_small (const KConvCudaJob *job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  switch (job->n_channels) {
  case 1:
    return launch_size<1> (*job, pw, stream);
  case 3:
    return launch_size<3> (*job, pw, stream);
  case 4:
    return launch_size<4> (*job, pw, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

KConvStatus
kconv_cuda_launch_small (const KConvCudaJob *job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_small (job, pw, stream),
      "kconv_cuda_launch_small");
}
