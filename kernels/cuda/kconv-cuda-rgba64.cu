/* kconv: 3x3 kernels on 8-byte pixels (RGBA64, BGRA64), streamed down columns
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The small kernel stages a tile of floats per channel in shared memory;
 * with four 16-bit words a pixel, those loads, conversions and shared
 * reads bound it (ncu on an H100: 66% of the SM's issue, 26% of DRAM; 4K
 * RGBA64 edge 3x3 in 0.125 ms, 3.8 times the 8-bit time).  Here a thread
 * owns one pixel column of ROWS output rows and no tile: each source row
 * it needs comes in as three 8-byte loads (x - 1 .. x + 1; the neighbours
 * are in the first-level cache, as the warp loads them too), its words
 * become floats in two instructions each, and the row stays in registers
 * for the three output rows that read it.  All four words are convolved
 * (36 multiply-adds an output pixel, weights from the constant bank), and
 * the words no channel covers (alpha) are put back from the source: 0.071
 * ms on an H100, 2.0-2.1 times the 8-bit time (kernels/PERFORMANCE.md).
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-cuda-words64.cuh"
#include "kconv-error.h"

/* output rows a thread: 4K RGBA64 edge 3x3 in 0.071-0.072 ms with 8,
 * 0.076 with 16, 0.094 with 32 (more rows, fewer blocks in flight) */
#define RGBA64_ROWS 8
#define RGBA64_BLOCK 128 /* threads a block, one pixel column each */

/* The rule for an exact sum with divisor 1 without a conversion: the sum,
 * signed and offset, clamped in floats (exact below 2^24 in size; past it,
 * every value clamps alike) and truncated by 2^23 + v */
__device__ __forceinline__ uint32_t
rgba64_finish_unit (const KConvCudaJob &job, float acc)
{
  float v = job.negate ? -acc : acc;
  v = job.absolute ? fabsf (v) : v;
  const int32_t off = job.ioffset < -(1 << 25)  ? -(1 << 25)
                      : job.ioffset > (1 << 25) ? (1 << 25)
                                                : job.ioffset;
  v = fminf (fmaxf (v + (float) off, 0.f), (float) job.maxval);
  return __float_as_uint (v + 8388608.f) & 0x7fffffu;
}

/* Source row sy at columns xs[0 .. 2] (the border rule applied unless
 * INTERIOR), and its pixel at xs[1] as it is */
template <bool INTERIOR, bool FULL>
__device__ __forceinline__ void
rgba64_load_row (const KConvCudaJob &job, int sy, const int (&xs)[3],
    float (&v)[3][4], uint2 &centre)
{
  const int ry =
      INTERIOR ? sy : kconv_border_index (job.border, sy, job.height);
  const uint8_t *row = job.src + (size_t) (ry < 0 ? 0 : ry) * job.src_stride;
#pragma unroll
  for (int k = 0; k < 3; k++) {
    const bool inside = INTERIOR || (ry >= 0 && xs[k] >= 0);
    const uint2 p =
        inside
            ? __ldg (
                  (const uint2 *) (row + (size_t) (xs[k] < 0 ? 0 : xs[k]) * 8))
            : make_uint2 (0, 0);
    kconv_cuda_words64_to_float<4, FULL> (job, p, v[k]);
    if (k == 1)
      centre = p;
  }
}

/* Output pixel (x, y) from the window's rows a (y - 1), b (y), c (y + 1) */
template <int MODE>
__device__ __forceinline__ void
rgba64_store (const KConvCudaJob &job, const KConvCudaWeights &pw, int x, int y,
    uint32_t channels, const float (&a)[3][4], const float (&b)[3][4],
    const float (&c)[3][4], uint2 centre)
{
  uint32_t out[4];
#pragma unroll
  for (int ch = 0; ch < 4; ch++) {
    float acc = 0.f;
#pragma unroll
    for (int kx = 0; kx < 3; kx++) {
      acc = fmaf (pw.w[kx], a[kx][ch], acc);
      acc = fmaf (pw.w[3 + kx], b[kx][ch], acc);
      acc = fmaf (pw.w[6 + kx], c[kx][ch], acc);
    }
    const uint32_t kept =
        (ch < 2 ? centre.x : centre.y) >> (16 * (ch & 1)) & 0xffffu;
    const uint32_t q =
        MODE == KCONV_FINISH_EXACT_UNIT
            ? rgba64_finish_unit (job, acc)
            : (uint32_t) kconv_cuda_finish_to<MODE> (job, acc, job.maxval);
    out[ch] = channels >> ch & 1 ? q << job.shift : kept;
  }
  *(uint2 *) (job.dst + (size_t) y * job.dst_stride + (size_t) x * 8) =
      make_uint2 (out[0] | out[1] << 16, out[2] | out[3] << 16);
}

template <int MODE, bool INTERIOR, bool FULL>
__device__ __forceinline__ void
rgba64_column (const KConvCudaJob &job, const KConvCudaWeights &pw, int x,
    int y0, uint32_t channels)
{
  int xs[3];
#pragma unroll
  for (int k = 0; k < 3; k++)
    xs[k] = INTERIOR ? x - 1 + k
                     : kconv_border_index (job.border, x - 1 + k, job.width);
  float a[3][4], b[3][4], c[3][4];
  uint2 cb, cc; /* the middle row's pixel x as it is, for its kept words */
  rgba64_load_row<INTERIOR, FULL> (job, y0 - 1, xs, a, cc);
  rgba64_load_row<INTERIOR, FULL> (job, y0, xs, b, cb);
#pragma unroll
  for (int r = 0; r < RGBA64_ROWS; r++) {
    if (y0 + r >= job.row_end)
      return;
    rgba64_load_row<INTERIOR, FULL> (job, y0 + r + 1, xs, c, cc);
    rgba64_store<MODE> (job, pw, x, y0 + r, channels, a, b, c, cb);
    /* the window moves down a row (renamed registers, fully unrolled) */
#pragma unroll
    for (int k = 0; k < 3; k++)
#pragma unroll
      for (int ch = 0; ch < 4; ch++) {
        a[k][ch] = b[k][ch];
        b[k][ch] = c[k][ch];
      }
    cb = cc;
  }
}

template <int MODE, bool FULL>
__global__ void
__launch_bounds__ (RGBA64_BLOCK)
    rgba64_kernel (const KConvCudaJob job, const KConvCudaWeights pw)
{
  const int x0 = blockIdx.x * RGBA64_BLOCK, x = x0 + threadIdx.x;
  const int y0 = job.row_begin + blockIdx.y * RGBA64_ROWS;
  if (x >= job.width)
    return;
  /* the words the channels cover; the others are the source's */
  uint32_t channels = 0;
  for (int c = 0; c < job.n_channels; c++)
    channels |= 1u << (job.channel_offset[c] / 2);
  if (x0 >= 1 && x0 + RGBA64_BLOCK < job.width && y0 >= 1 &&
      y0 + RGBA64_ROWS < job.height)
    rgba64_column<MODE, true, FULL> (job, pw, x, y0, channels);
  else
    rgba64_column<MODE, false, FULL> (job, pw, x, y0, channels);
}

int
kconv_cuda_rgba64_fits (const KConvCudaJob *job)
{
  int words_ok = 1;
  for (int c = 0; c < job->n_channels; c++)
    words_ok &= job->channel_offset[c] % 2 == 0;
  return job->cols == 3 && job->rows == 3 && job->pixel_stride == 8 &&
         job->aligned8 && !job->big_endian && words_ok &&
         (job->copy_other_bytes || job->n_channels == 4);
}

template <int MODE>
static void
launch_mode (const KConvCudaJob *job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  dim3 grid (kconv_div_up (job->width, RGBA64_BLOCK),
      kconv_cuda_grid_rows (*job, RGBA64_ROWS));
  if (job->depth == 16 && job->shift == 0)
    rgba64_kernel<MODE, true><<<grid, RGBA64_BLOCK, 0, stream>>> (*job, *pw);
  else
    rgba64_kernel<MODE, false><<<grid, RGBA64_BLOCK, 0, stream>>> (*job, *pw);
}

KConvStatus
kconv_cuda_launch_rgba64 (const KConvCudaJob *job, const KConvCudaWeights *pw,
    cudaStream_t stream)
{
  switch (kconv_cuda_finish_mode (*job)) {
  case KCONV_FINISH_FLOAT:
    launch_mode<KCONV_FINISH_FLOAT> (job, pw, stream);
    break;
  case KCONV_FINISH_EXACT_UNIT:
    launch_mode<KCONV_FINISH_EXACT_UNIT> (job, pw, stream);
    break;
  default:
    launch_mode<KCONV_FINISH_EXACT> (job, pw, stream);
    break;
  }
  return kconv_cuda_status (cudaGetLastError (), "kconv_cuda_launch_rgba64");
}
