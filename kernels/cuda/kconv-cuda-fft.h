/* kconv: large kernels on CUDA through the FFT (cuFFT, loaded at run time)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cuda_runtime.h>
#include "kconv-cuda-common.cuh"

struct KConvCudaFft;

/* weights: rows * cols, already scaled for inexact kernels.  Returns NULL
 * (kconv_last_error says why) when cuFFT cannot be loaded. */
KConvCudaFft *kconv_cuda_fft_new (const float *weights, int cols, int rows);

/* Convolves every channel of job in one go (job.n_channels of them; it
 * writes the untouched bytes too).  Buffers and the kernel's spectrum are
 * made on the first frame of a size and kept. */
KConvStatus kconv_cuda_fft_run (KConvCudaFft * fft, const KConvCudaJob * job,
    cudaStream_t stream);

void kconv_cuda_fft_free (KConvCudaFft * fft);
