/* kconv: the CUDA launchers the host code calls
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cuda_runtime.h>
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-int.cuh"

/* Shared memory one block of each kernel needs. */
size_t kconv_cuda_direct_smem (int nch, int cols, int rows);
size_t kconv_cuda_separable_smem (int nch, int cols, int rows);

/* gw NULL: weights in pw (at most KCONV_CUDA_PARAM_WEIGHTS of them). */
KConvStatus kconv_cuda_launch_direct (const KConvCudaJob * job,
    const KConvCudaWeights * pw, const float *gw, cudaStream_t stream);

/* Square 3x3, 5x5 and 7x7 kernels on 1, 3 or 4 channels, weights in pw. */
int kconv_cuda_small_fits (int cols, int rows, int n_channels);
KConvStatus kconv_cuda_launch_small (const KConvCudaJob * job,
    const KConvCudaWeights * pw, cudaStream_t stream);

/* 3x3 on 8-byte pixels of four little-endian 16-bit words (RGBA64,
 * BGRA64; aligned, the words no channel covers copied from the source),
 * streamed down columns */
int kconv_cuda_rgba64_fits (const KConvCudaJob * job);
KConvStatus kconv_cuda_launch_rgba64 (const KConvCudaJob * job,
    const KConvCudaWeights * pw, cudaStream_t stream);

/* pw holds h (cols) then v (rows).  Separable kernels up to 31x31 on
 * 8-byte pixels of 16-bit words (RGBA64, BGRA64; aligned, all four words
 * or the first three with the fourth copied) take kconv_cuda_launch_
 * separable64, every word from one read. */
int kconv_cuda_separable64_fits (const KConvCudaJob * job);
KConvStatus kconv_cuda_launch_separable64 (const KConvCudaJob * job,
    const KConvCudaWeights * pw, cudaStream_t stream);
KConvStatus kconv_cuda_launch_separable (const KConvCudaJob * job,
    const KConvCudaWeights * pw, cudaStream_t stream);

/* The integer paths (kconv-cuda-int.cuh says which kernel takes which):
 * two channels an instruction in 16-bit lanes, and four taps an
 * instruction (DP4A). */
KConvStatus kconv_cuda_launch_packed (const KConvCudaJob * job,
    const KConvCudaIntWeights * iw, cudaStream_t stream);
/* Exact 3x3, 5x5 and 7x7 kernels whose weights fit a signed byte, on
 * 4-byte pixels whose rows are 16-byte aligned, streamed down columns
 * without a tile (DP4A).  prepare says whether the kernel takes the job
 * and, where it does, puts the weights and rounding constants the launch
 * takes in *p. */
typedef struct
{
  uint32_t row[7][2];           /* kernel row ky's taps 4j to 4j + 3 as
                                 * signed bytes in row[ky][j], negation
                                 * folded in, 0 past the kernel */
  uint32_t n_bias, magic;       /* the rounding rule (kconv-cuda-strips.cu) */
  int32_t add;
  int size;                     /* 3, 5 or 7 */
} KConvCudaStrips;
int kconv_cuda_strips_prepare (const KConvCudaJob * job,
    const KConvCudaIntWeights * iw, KConvCudaStrips * p);
KConvStatus kconv_cuda_launch_strips (const KConvCudaJob * job,
    const KConvCudaStrips * p, cudaStream_t stream);
KConvStatus kconv_cuda_launch_dp4a (const KConvCudaJob * job,
    const KConvCudaIntWeights * iw, cudaStream_t stream);

/* Exact kernels whose weights fit a signed byte, on tensor cores (compute
 * capability 8.0 and up), any size, 1 to 4 channels of any layout.  The
 * weight table is built once per kernel (kconv_cuda_mma_table) and lives
 * on the device. */
int kconv_cuda_mma_chunks (int cols);
size_t kconv_cuda_mma_table_bytes (int rows, int cols, int ax);
void kconv_cuda_mma_table (const int8_t * w, int rows, int cols, int ax,
    uint32_t * table);
size_t kconv_cuda_mma_smem (int nch, int cols, int rows);
KConvStatus kconv_cuda_launch_mma (const KConvCudaJob * job,
    const uint32_t * table, cudaStream_t stream);

/* The same kernels on the warpgroup tensor cores of compute capability
 * 9.0 (wgmma; built for sm_90a), one launch for every channel; the table
 * (kconv_cuda_wgmma_weights) holds the kernel rows padded with zeros. */
int kconv_cuda_wgmma_available (int device);
size_t kconv_cuda_wgmma_weights_bytes (int rows, int cols);
void kconv_cuda_wgmma_weights (const int8_t * w, int rows, int cols,
    int8_t * out);
size_t kconv_cuda_wgmma_smem (int cols, int rows);
KConvStatus kconv_cuda_launch_wgmma (const KConvCudaJob * job,
    const int8_t * weights, cudaStream_t stream);

/* Inexact separable kernels up to 33x33 on tensor cores in half
 * precision (8.0 and up), 1 to 4 channels of any layout.  prepare rounds
 * h and v into h16 and v16 (hv's layout: h then v) and returns a bound on
 * the distance of an output from the float result; the path is for
 * kernels whose bound keeps outputs within 1. */
int kconv_cuda_separable_mma_fits (int cols, int rows);
double kconv_cuda_separable_mma_prepare (const float *h, const float *v,
    int cols, int rows, float *h16, float *v16);
size_t kconv_cuda_separable_mma_smem (int nch, const KConvCudaJob * job);
KConvStatus kconv_cuda_launch_separable_mma (const KConvCudaJob * job,
    const KConvCudaWeights * hv, cudaStream_t stream);
