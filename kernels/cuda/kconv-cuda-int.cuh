/* kconv: what the integer paths for small kernels on 4-byte pixels share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three kernels take exact 3x3, 5x5 and 7x7 kernels on 4-byte pixels in
 * integers: kconv-cuda-strips.cu (weights that fit a signed byte, rows
 * 16-byte aligned, no tile), and on tiles kconv-cuda-packed.cu (two
 * channels an instruction in 16-bit lanes, for small sums) and
 * kconv-cuda-dp4a.cu (four taps an instruction, for weights that fit a
 * signed byte).  Which tile kernel a kernel takes depends on its weights
 * only and is decided once; the layout and alignment are checked per
 * frame.
 */
#pragma once

#include <string.h>
#include <type_traits>
#include "kconv-cuda-common.cuh"

typedef enum {
  KCONV_CUDA_INT_NONE,
  KCONV_CUDA_INT_PACKED,
  KCONV_CUDA_INT_DP4A,
} KConvCudaIntPath;

/* The weights, as each integer path takes them. */
struct KConvCudaIntWeights
{
  int32_t w[49];                 /* packed lanes: row-major */
  uint32_t row_lo[7], row_hi[7]; /* DP4A: a kernel row's taps 0-3 and
                                  * 4-7 as signed bytes (0 past K) */
};

/* acc + the dot product of four unsigned bytes with four signed ones */
__device__ __forceinline__ int
kconv_cuda_dp4a_us (uint32_t a, uint32_t b, int acc)
{
  int r;
  asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

/* The integer path a square k x k exact kernel can take (k = 3, 5 or 7),
 * with its weights in *iw. */
static inline KConvCudaIntPath
kconv_cuda_int_setup (const float *weights, int k, KConvCudaIntWeights *iw)
{
  int sum = 0, bytes = 1;
  memset (iw, 0, sizeof *iw);
  for (int i = 0; i < k * k; i++) {
    const float w = weights[i];
    if (w != (float) (int) w || w > 32767.f || w < -32767.f)
      return KCONV_CUDA_INT_NONE;
    iw->w[i] = (int32_t) w;
    sum += w < 0 ? (int) -w : (int) w;
    bytes &= w >= -128.f && w <= 127.f;
    const uint32_t b = (uint8_t) (int8_t) (bytes ? (int) w : 0);
    if (i % k < 4)
      iw->row_lo[i / k] |= b << (8 * (i % k));
    else
      iw->row_hi[i / k] |= b << (8 * (i % k - 4));
  }
  /* every channel's sum within a 16-bit lane */
  if (255 * sum < 32768)
    return KCONV_CUDA_INT_PACKED;
  return bytes ? KCONV_CUDA_INT_DP4A : KCONV_CUDA_INT_NONE;
}

/* Whether every weight of a square k x k kernel is an integer that fits a
 * signed byte (DP4A's operands). */
static inline int
kconv_cuda_int_bytes (const float *weights, int k)
{
  for (int i = 0; i < k * k; i++)
    if (weights[i] != (float) (int) weights[i] || weights[i] < -128.f ||
        weights[i] > 127.f)
      return 0;
  return 1;
}

/* The bytes of a pixel the job convolves, as a mask. */
static inline int
kconv_cuda_convolved_bytes (const KConvCudaJob &job)
{
  int mask = 0;
  for (int c = 0; c < job.n_channels; c++)
    mask |= 1 << job.channel_offset[c];
  return mask;
}

/* The layouts the integer kernels are built for: 4 aligned bytes a pixel,
 * bytes 0-2, 1-3 or all four convolved (in any channel order), the rest
 * copied from the source. */
static inline int
kconv_cuda_int_layout_fits (const KConvCudaJob &job)
{
  const int bytes = kconv_cuda_convolved_bytes (job);
  return job.pixel_stride == 4 && job.aligned4 && job.copy_other_bytes &&
         (bytes == 0x7 || bytes == 0xe || bytes == 0xf);
}

/* launch (std::integral_constant <int, BYTES>) for the job's byte mask. */
template <class Launch>
static cudaError_t
kconv_cuda_by_bytes (const KConvCudaJob &job, Launch launch)
{
  switch (kconv_cuda_convolved_bytes (job)) {
  case 0x7:
    return launch (std::integral_constant<int, 0x7>{});
  case 0xe:
    return launch (std::integral_constant<int, 0xe>{});
  case 0xf:
    return launch (std::integral_constant<int, 0xf>{});
  default:
    return cudaErrorInvalidValue;
  }
}

/* word with each convolved byte b replaced by its rounded sum[b]; the
 * other bytes (alpha, padding) stay as they are. */
template <int MODE, int BYTES>
__device__ __forceinline__ uint32_t
kconv_cuda_finish_word (const KConvCudaJob &job, uint32_t word,
    const int (&sum)[4])
{
#pragma unroll
  for (int b = 0; b < 4; b++)
    if (BYTES >> b & 1) {
      const uint32_t v = kconv_cuda_finish_int<MODE> (job, sum[b]);
      word = (word & ~(0xffu << (8 * b))) | v << (8 * b);
    }
  return word;
}
