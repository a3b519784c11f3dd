/* kconv: the sum of F T of 8-bit samples on CUDA through the FFT
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CUDA_FFT_H
#define KMATCH_CUDA_FFT_H

#include <stdint.h>
#include <cuda_runtime.h>
#include "kconv.h"

typedef struct KMatchCudaFft KMatchCudaFft;

/* The template a matcher correlates: th rows of row bytes (ch bytes a
 * pixel, no mask) in device memory, which stays there until the next call
 * or the free.  Its spectrum is made on the next correlation. */
void kmatch_cuda_fft_set_template (KMatchCudaFft ** f, const uint8_t * d_tmpl,
    int row, int th, int ch);

/* ft[y * mw + x] = the sum of F T at every position of the region (rows of
 * (mw + tw - 1) * ch bytes, pitch apart, mh + th - 1 of them, in device
 * memory), exact, queued on stream: 1 and *st where the FFT was taken; 0
 * where the direct correlation should be (no cuFFT, a bound on the
 * transform's error too large to round to the exact sums, or, unless the
 * tuning forces it, a template small enough that summing directly costs
 * less).  A failure to make its buffers or plans is a 0 too, so the
 * search goes on directly on a device short of memory. */
int kmatch_cuda_fft_correlate (KMatchCudaFft * f, const uint8_t * region,
    int pitch, int mw, int mh, uint64_t * ft, cudaStream_t stream,
    KConvStatus * st);

void kmatch_cuda_fft_free (KMatchCudaFft * f);

#endif /* KMATCH_CUDA_FFT_H */
