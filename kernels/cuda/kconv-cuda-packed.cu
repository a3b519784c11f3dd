/* kconv: small integer kernels on 4-byte pixels, two channels an instruction
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For the common case (RGBA-family video, a 3x3 to 7x7 kernel of small
 * integers such as edge, sharpen or sobel) the float kernel spends its
 * instructions converting bytes and doing one FMA per channel per tap.
 * Here the pixels stay packed: one byte permute splits a pixel into two
 * words of two 16-bit lanes (bytes 0 and 2, bytes 1 and 3), and one
 * integer multiply-add accumulates two channels at once.  Negative
 * products borrow across the lanes, which is harmless: the low lane is
 * read back sign-extended and the high lane as the rest, exact whenever
 * every channel's sum fits in 16 bits (255 * sum |w| < 2^15).  Kernels
 * whose weights fit a signed byte, on rows that are 16-byte aligned, take
 * kconv-cuda-strips.cu instead, which is faster.
 */
#include "kconv-cuda-int.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define PACKED_ROWS 8   /* outputs a thread, down a column */
#define PACKED_PITCH 40 /* 32 + 7 - 1, rounded up */

/* bytes 0 and 2 of w in the two 16-bit lanes; bytes 1 and 3 */
__device__ __forceinline__ uint32_t
lanes_even (uint32_t w)
{
  return __byte_perm (w, 0, 0x4240);
}

__device__ __forceinline__ uint32_t
lanes_odd (uint32_t w)
{
  return __byte_perm (w, 0, 0x4341);
}

/* The exact sums of the two lanes (each within +-32767). */
__device__ __forceinline__ void
unpack_lanes (uint32_t acc, int &lo, int &hi)
{
  lo = (int) (int16_t) (acc & 0xffffu);
  hi = ((int) acc - lo) >> 16;
}

/* BYTES: which bytes of a pixel are convolved (bit b: byte b); the order
 * of the channels does not matter, each byte finishes its own sum. */
template <int K, int MODE, int BYTES>
__global__ void
__launch_bounds__ (KCONV_CUDA_TILE_W *KCONV_CUDA_BLOCK_ROWS)
    packed_kernel (const KConvCudaJob job, const KConvCudaIntWeights iw)
{
  const int tile_h = KCONV_CUDA_BLOCK_ROWS * PACKED_ROWS;
  __shared__ uint32_t
      tile[KCONV_CUDA_BLOCK_ROWS * PACKED_ROWS + K - 1][PACKED_PITCH];
  const int x0 = blockIdx.x * KCONV_CUDA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * tile_h;
  const bool interior = x0 >= K / 2 && y0 >= K / 2 &&
                        x0 + KCONV_CUDA_TILE_W + K / 2 <= job.width &&
                        y0 + tile_h + K / 2 <= job.height;

  if (interior) {
    /* most tiles: no border to apply */
    const uint32_t *base =
        (const uint32_t *) (job.src + (size_t) (y0 - K / 2) * job.src_stride) +
        x0 - K / 2;
    const int words = job.src_stride / 4;
    const int tile_w = KCONV_CUDA_TILE_W + K - 1;
    /* copied straight to shared memory, every load in flight at once */
    for (int at = threadIdx.y * blockDim.x + threadIdx.x;
         at < tile_w * (tile_h + K - 1); at += blockDim.x * blockDim.y) {
      const int ty = at / tile_w, tx = at - ty * tile_w;
      kconv_cuda_copy_word_async (&tile[ty][tx],
          base + (size_t) ty * words + tx);
    }
    kconv_cuda_copy_wait ();
  } else {
    /* the tile and its halo, whole pixels, border rule applied */
    for (int ty = threadIdx.y; ty < tile_h + K - 1; ty += blockDim.y) {
      const int sy =
          kconv_border_index (job.border, y0 - K / 2 + ty, job.height);
      const uint32_t *row =
          (const uint32_t *) (job.src +
                              (size_t) (sy < 0 ? 0 : sy) * job.src_stride);
      for (int tx = threadIdx.x; tx < KCONV_CUDA_TILE_W + K - 1;
           tx += blockDim.x) {
        const int sx =
            kconv_border_index (job.border, x0 - K / 2 + tx, job.width);
        tile[ty][tx] = sy >= 0 && sx >= 0 ? __ldg (row + sx) : 0u;
      }
    }
  }
  __syncthreads ();

  const int tx = threadIdx.x, ty0 = threadIdx.y * PACKED_ROWS;
  uint32_t even[PACKED_ROWS], odd[PACKED_ROWS];
#pragma unroll
  for (int r = 0; r < PACKED_ROWS; r++)
    even[r] = odd[r] = 0u;
  uint32_t centre[PACKED_ROWS];

#pragma unroll
  for (int kx = 0; kx < K; kx++) {
    uint32_t e[PACKED_ROWS + K - 1], o[PACKED_ROWS + K - 1];
#pragma unroll
    for (int i = 0; i < PACKED_ROWS + K - 1; i++) {
      const uint32_t w = tile[ty0 + i][tx + kx];
      if (kx == K / 2 && i >= K / 2 && i < K / 2 + PACKED_ROWS)
        centre[i - K / 2] = w;
      e[i] = lanes_even (w);
      o[i] = lanes_odd (w);
    }
#pragma unroll
    for (int ky = 0; ky < K; ky++) {
      const uint32_t wt = (uint32_t) iw.w[ky * K + kx];
#pragma unroll
      for (int r = 0; r < PACKED_ROWS; r++) {
        even[r] += e[r + ky] * wt;
        odd[r] += o[r + ky] * wt;
      }
    }
  }

  const int x = x0 + tx;
  if (x >= job.width)
    return;
  uint8_t *out =
      job.dst + (size_t) (y0 + ty0) * job.dst_stride + (size_t) x * 4;
  const int rows = job.row_end - (y0 + ty0);
#pragma unroll
  for (int r = 0; r < PACKED_ROWS; r++, out += job.dst_stride) {
    int sum[4]; /* of bytes 0 .. 3 */
    unpack_lanes (even[r], sum[0], sum[2]);
    unpack_lanes (odd[r], sum[1], sum[3]);
    /* bytes no channel covers keep the source's (alpha, padding) */
    const uint32_t word =
        kconv_cuda_finish_word<MODE, BYTES> (job, centre[r], sum);
    if (r < rows)
      *(uint32_t *) out = word;
  }
}

template <int K, int MODE>
static cudaError_t
launch_packed (const KConvCudaJob &job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_cuda_grid_rows (job, KCONV_CUDA_BLOCK_ROWS * PACKED_ROWS));
  /* RGBA/BGRA/RGBx/BGRx, ARGB/ABGR/xRGB/xBGR, all four */
  return kconv_cuda_by_bytes (job, [&] (auto bytes) {
    packed_kernel<K, MODE, decltype (bytes)::value>
        <<<grid, block, 0, stream>>> (job, *iw);
    return cudaGetLastError ();
  });
}

template <int K>
static cudaError_t
launch_packed_mode (const KConvCudaJob &job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  return kconv_cuda_finish_mode (job) == KCONV_FINISH_EXACT_UNIT
             ? launch_packed<K, KCONV_FINISH_EXACT_UNIT> (job, iw, stream)
             : launch_packed<K, KCONV_FINISH_EXACT> (job, iw, stream);
}

static cudaError_t
launch_any_packed (const KConvCudaJob *job, const KConvCudaIntWeights *iw,
    cudaStream_t stream)
{
  switch (job->cols) {
  case 3:
    return launch_packed_mode<3> (*job, iw, stream);
  case 5:
    return launch_packed_mode<5> (*job, iw, stream);
  default:
    return launch_packed_mode<7> (*job, iw, stream);
  }
}

KConvStatus
kconv_cuda_launch_packed (const KConvCudaJob *job,
    const KConvCudaIntWeights *iw, cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_packed (job, iw, stream),
      "kconv_cuda_launch_packed");
}
