/* kconv: small integer kernels on 4-byte pixels, four taps an instruction
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For exact kernels up to 7x7 whose weights fit in a signed byte but whose
 * sums are too large for the packed path's 16-bit lanes, on rows that
 * kconv-cuda-strips.cu cannot take (not 16-byte aligned).  The tile is
 * stored planar (a byte plane per convolved channel), so four horizontal
 * neighbours of a channel sit in one word; a funnel shift aligns the window
 * of each output and DP4A multiplies four bytes by four signed weights and
 * adds them to an exact 32-bit sum.  A thread makes four neighbouring
 * outputs on each of DP4A_ROWS rows.
 */
#include "kconv-cuda-int.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#ifndef DP4A_ROWS
#define DP4A_ROWS                                                              \
  2 /* output rows a thread (1 and 2 measured                                  \
     * alike, 3 and 4 slower: registers) */
#endif
#define DP4A_X 4                                 /* output columns a thread */
#define DP4A_TILE_W (KCONV_CUDA_TILE_W * DP4A_X) /* 128 */
#define DP4A_TILE_H (KCONV_CUDA_BLOCK_ROWS * DP4A_ROWS) /* 32 */
#define DP4A_PITCH 36 /* words: (128 + 6) / 4 rounded up, + 2 */

template <int K, int MODE, int BYTES>
__global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W *KCONV_CUDA_BLOCK_ROWS)
    dp4a_kernel (const KConvCudaJob job, const KConvCudaIntWeights iw)
{
  __shared__ uint32_t plane[4][DP4A_TILE_H + K - 1][DP4A_PITCH];
  __shared__ uint32_t raw[DP4A_TILE_H + K - 1][4 * DP4A_PITCH];
  const int tile_w = DP4A_TILE_W + K - 1, tile_h = DP4A_TILE_H + K - 1;
  const int x0 = blockIdx.x * DP4A_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * DP4A_TILE_H;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int threads = blockDim.x * blockDim.y;

  /* the tile and its halo as whole pixels: most tiles lie inside the image
   * and are copied straight to shared memory, every load in flight at
   * once; the others take the border rule */
  if (x0 >= K / 2 && y0 >= K / 2 && x0 + DP4A_TILE_W + K / 2 <= job.width &&
      y0 + DP4A_TILE_H + K / 2 <= job.height) {
    const uint32_t *base =
        (const uint32_t *) (job.src + (size_t) (y0 - K / 2) * job.src_stride) +
        x0 - K / 2;
    for (int at = tid; at < tile_w * tile_h; at += threads) {
      const int ty = at / tile_w, tx = at - ty * tile_w;
      kconv_cuda_copy_word_async (&raw[ty][tx],
          base + (size_t) ty * (job.src_stride / 4) + tx);
    }
    kconv_cuda_copy_wait ();
  } else {
    for (int at = tid; at < tile_w * tile_h; at += threads) {
      const int ty = at / tile_w, tx = at - ty * tile_w;
      const int sy =
          kconv_border_index (job.border, y0 - K / 2 + ty, job.height);
      const int sx =
          kconv_border_index (job.border, x0 - K / 2 + tx, job.width);
      raw[ty][tx] =
          sy >= 0 && sx >= 0
              ? __ldg ((const uint32_t *) (job.src +
                                           (size_t) sy * job.src_stride) +
                       sx)
              : 0u;
    }
  }
  __syncthreads ();

  /* each convolved byte to its own plane, four pixels a word */
  const int quads = (tile_w + 3) / 4;
  for (int at = tid; at < quads * tile_h; at += threads) {
    const int ty = at / quads, q = at - ty * quads;
    uint32_t p[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
      p[i] = 4 * q + i < tile_w ? raw[ty][4 * q + i] : 0u;
#pragma unroll
    for (int b = 0; b < 4; b++)
      if (BYTES >> b & 1)
        plane[b][ty][q] = kconv_cuda_gather_byte (p, b);
  }
  __syncthreads ();

  const int tx = threadIdx.x, ty0 = threadIdx.y * DP4A_ROWS;
  int acc[4][DP4A_ROWS][DP4A_X];
#pragma unroll
  for (int b = 0; b < 4; b++)
#pragma unroll
    for (int r = 0; r < DP4A_ROWS; r++)
#pragma unroll
      for (int j = 0; j < DP4A_X; j++)
        acc[b][r][j] = 0;

#pragma unroll
  for (int b = 0; b < 4; b++) {
    if (!(BYTES >> b & 1))
      continue;
#pragma unroll
    for (int s = 0; s < DP4A_ROWS + K - 1; s++) {
      /* bytes 4 tx .. 4 tx + 11 of source row ty0 + s: the windows of the
       * thread's four outputs */
      const uint32_t *p = &plane[b][ty0 + s][tx];
      const uint32_t w0 = p[0], w1 = p[1], w2 = p[2];
      uint32_t lo[DP4A_X], hi[DP4A_X];
#pragma unroll
      for (int j = 0; j < DP4A_X; j++) {
        lo[j] = j ? __funnelshift_r (w0, w1, 8 * j) : w0;
        hi[j] = j ? __funnelshift_r (w1, w2, 8 * j) : w1;
      }
#pragma unroll
      for (int r = 0; r < DP4A_ROWS; r++) {
        const int ky = s - r;
        if (ky < 0 || ky >= K)
          continue;
#pragma unroll
        for (int j = 0; j < DP4A_X; j++) {
          acc[b][r][j] =
              kconv_cuda_dp4a_us (lo[j], iw.row_lo[ky], acc[b][r][j]);
          if (K > 4)
            acc[b][r][j] =
                kconv_cuda_dp4a_us (hi[j], iw.row_hi[ky], acc[b][r][j]);
        }
      }
    }
  }

  const int xs = x0 + DP4A_X * tx;
  const int rows = job.row_end - (y0 + ty0);
#pragma unroll
  for (int r = 0; r < DP4A_ROWS; r++) {
    if (r >= rows)
      break;
    const int y = y0 + ty0 + r;
#pragma unroll
    for (int j = 0; j < DP4A_X; j++) {
      const int x = xs + j;
      if (x >= job.width)
        break;
      /* bytes no channel covers keep the source's (alpha, padding) */
      const uint32_t src =
          BYTES == 0xf
              ? 0u
              : __ldg (
                    (const uint32_t *) (job.src + (size_t) y * job.src_stride) +
                    x);
      const int sum[4] = { acc[0][r][j], acc[1][r][j], acc[2][r][j],
        acc[3][r][j] };
      const uint32_t word = kconv_cuda_finish_word<MODE, BYTES> (job, src, sum);
      *(uint32_t *) (job.dst + (size_t) y * job.dst_stride + (size_t) x * 4) =
          word;
    }
  }
}

template <int K, int MODE>
static cudaError_t
launch_dp4a (const KConvCudaJob &job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, DP4A_TILE_W),
      kconv_cuda_grid_rows (job, DP4A_TILE_H));
  return kconv_cuda_by_bytes (job, [&] (auto bytes) {
    dp4a_kernel<K, MODE, decltype (bytes)::value>
        <<<grid, block, 0, stream>>> (job, *iw);
    return cudaGetLastError ();
  });
}

template <int K>
static cudaError_t
launch_dp4a_mode (const KConvCudaJob &job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  return kconv_cuda_finish_mode (job) == KCONV_FINISH_EXACT_UNIT
             ? launch_dp4a<K, KCONV_FINISH_EXACT_UNIT> (job, iw, stream)
             : launch_dp4a<K, KCONV_FINISH_EXACT> (job, iw, stream);
}

static cudaError_t
launch_any_dp4a (const KConvCudaJob *job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  switch (job->cols) {
  case 3:
    return launch_dp4a_mode<3> (*job, iw, stream);
  case 5:
    return launch_dp4a_mode<5> (*job, iw, stream);
  default:
    return launch_dp4a_mode<7> (*job, iw, stream);
  }
}

KConvStatus
kconv_cuda_launch_dp4a (const KConvCudaJob *job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_dp4a (job, iw, stream),
      "kconv_cuda_launch_dp4a");
}
