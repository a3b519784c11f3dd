/* kconv: large kernels on CUDA through the FFT (cuFFT, loaded at run time)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>
#include "kconv-cuda-common.cuh"

/* The cuFFT functions kconv calls, opened at run time (cuFFT is a shared
 * library that machines without the CUDA toolkit lack) */
typedef cufftResult (*PlanManyFn) (cufftHandle *, int, int *, int *, int, int,
    int *, int, int, cufftType, int);
typedef cufftResult (*SetStreamFn) (cufftHandle, cudaStream_t);
typedef cufftResult (*ExecD2ZFn) (cufftHandle, cufftDoubleReal *,
    cufftDoubleComplex *);
typedef cufftResult (*ExecZ2DFn) (cufftHandle, cufftDoubleComplex *,
    cufftDoubleReal *);
typedef cufftResult (*DestroyFn) (cufftHandle);
struct KConvCufft
{
  int ok;
  PlanManyFn plan_many;
  SetStreamFn set_stream;
  ExecD2ZFn exec_d2z;
  ExecZ2DFn exec_z2d;
  DestroyFn destroy;
};

/* cuFFT, loaded once a process; NULL where it cannot be */
const KConvCufft *kconv_cuda_cufft (void);

/* A D2Z and a Z2D plan of `batch` ny x nx planes laid one after another
 * (real planes nx * ny values apart, spectra (nx / 2 + 1) * ny), cuFFT
 * loaded: CUFFT_SUCCESS, or the failing call's result with neither plan
 * left made */
cufftResult kconv_cuda_fft_plans (int nx, int ny, int batch,
    cufftHandle * fwd, cufftHandle * inv);

/* out[i] = conj (spec[i]) * scale for i < n, queued on stream (out may be
 * spec): a kernel's spectrum for a correlation, with the inverse
 * transform's scale in it */
KConvStatus kconv_cuda_fft_conjugate (const double2 * spec, double2 * out,
    size_t n, double scale, cudaStream_t stream);

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
