/* kconv: 8-byte pixels of four little-endian 16-bit words (RGBA64, BGRA64)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kconv-cuda-common.cuh"

/* Words 0 .. N - 1 of a pixel (one 8-byte load) as floats, two
 * instructions a word: 2^23 + w, less 2^23.  FULL: the words are 16-bit
 * values; else each holds one of job.depth bits at job.shift (and maybe
 * stray bits) */
template <int N, bool FULL>
__device__ __forceinline__ void
kconv_cuda_words64_to_float (const KConvCudaJob &job, uint2 p, float (&f)[N])
{
#pragma unroll
  for (int k = 0; k < N; k++) {
    const uint32_t half = k < 2 ? p.x : p.y;
    if (FULL)
      f[k] = __uint_as_float (
                 __byte_perm (half, 0x4B000000u, k & 1 ? 0x7632 : 0x7610)) -
             8388608.f;
    else
      f[k] = kconv_cuda_u8_to_float (
          (half >> (16 * (k & 1))) >> job.shift & (uint32_t) job.maxval);
  }
}
