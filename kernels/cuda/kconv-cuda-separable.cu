/* kconv: separable (rank-1) convolution on CUDA, both passes in one kernel
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A block stages its source tile in shared memory, runs the horizontal taps
 * into a second shared tile (output width by tile height plus the vertical
 * halo), then the vertical taps out of it.  Only 8-bit pixels cross device
 * memory.  Channels take turns in the same shared memory (each sample is
 * re-read from the cache, which costs less than the occupancy a tile per
 * channel would), their results wait in registers until the whole pixel is
 * written.  Both passes slide a window of SEP_RUN samples through registers,
 * so a sample read from shared memory feeds up to SEP_RUN multiply-adds:
 * horizontally each thread makes SEP_RUN neighbouring outputs of a row (the
 * source rows are laid out with a spare word every SEP_RUN floats and a
 * pitch of 4 mod 32 banks, so the 32 threads of a warp never share a bank),
 * vertically SEP_RUN outputs of a column.
 */
#include "kconv-cuda-common.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define SEP_RUN 8
#define SEP_OUT_H (KCONV_CUDA_BLOCK_ROWS * SEP_RUN) /* 64 output rows */
#define SEP_THREADS (KCONV_CUDA_TILE_W * KCONV_CUDA_BLOCK_ROWS)
#define SEP_MID_PITCH (KCONV_CUDA_TILE_W + 1)

/* raw rows: column p lives at p + p / SEP_RUN */
struct SepRawLayout
{
  int pitch;
  __device__ int operator() (int row, int col) const
  {
    return row * pitch + col + col / SEP_RUN;
  }
};

static inline __host__ __device__ int
sep_raw_pitch (int cols)
{
  int len = KCONV_CUDA_TILE_W + cols - 1 + SEP_RUN; /* + window overrun */
  len += len / SEP_RUN + 1;
  return (len + 31) / 32 * 32 + 4;
}

size_t
kconv_cuda_separable_smem (int nch, int cols, int rows)
{
  size_t tile_h = SEP_OUT_H + rows - 1;
  size_t raw = (size_t) sep_raw_pitch (cols) * tile_h;
  size_t mid = (size_t) SEP_MID_PITCH * (tile_h + SEP_RUN);
  (void) nch; /* one channel at a time */
  return (raw + mid) * sizeof (float);
}

/* a[r] = sum_k w[k] * s[r + k] for r < SEP_RUN, where sample i = SEP_RUN b
 * + e (e < SEP_RUN) lives at base[b * block + e * STEP]: the reads are a
 * pointer bumped once per SEP_RUN taps plus constant offsets. */
template <int STEP>
__device__ __forceinline__ void
slide (float a[SEP_RUN], const float *w, int taps, const float *base, int block)
{
  float win[SEP_RUN];
#pragma unroll
  for (int r = 0; r < SEP_RUN; r++) {
    a[r] = 0.f;
    win[r] = base[r * STEP];
  }
  const float *next = base + block;
  int k = 0;
  /* two blocks an iteration: the window swaps names instead of moving */
#pragma unroll 2
  for (; k + SEP_RUN <= taps; k += SEP_RUN, next += block) {
    float nxt[SEP_RUN];
#pragma unroll
    for (int r = 0; r < SEP_RUN; r++)
      nxt[r] = next[r * STEP];
#pragma unroll
    for (int j = 0; j < SEP_RUN; j++) {
      const float wj = w[k + j];
#pragma unroll
      for (int r = 0; r < SEP_RUN; r++)
        a[r] = fmaf (wj, r + j < SEP_RUN ? win[r + j] : nxt[r + j - SEP_RUN],
            a[r]);
    }
#pragma unroll
    for (int r = 0; r < SEP_RUN; r++)
      win[r] = nxt[r];
  }
  /* the last rem < SEP_RUN taps: same window, indices fixed at compile time */
  const int rem = taps - k;
  if (rem > 0) {
    float nxt[SEP_RUN];
#pragma unroll
    for (int r = 0; r < SEP_RUN - 1; r++)
      nxt[r] = r + 1 < rem ? next[r * STEP] : 0.f;
#pragma unroll
    for (int j = 0; j < SEP_RUN - 1; j++) {
      if (j < rem) {
        const float wj = w[k + j];
#pragma unroll
        for (int r = 0; r < SEP_RUN; r++)
          a[r] = fmaf (wj, r + j < SEP_RUN ? win[r + j] : nxt[r + j - SEP_RUN],
              a[r]);
      }
    }
  }
}

template <int NCH, bool DEEP>
__global__ void
__launch_bounds__ (SEP_THREADS)
    separable_kernel (const KConvCudaJob job, const KConvCudaWeights hv)
{
  extern __shared__ float smem[];
  const int tile_h = SEP_OUT_H + job.rows - 1;
  const SepRawLayout raw_at{ sep_raw_pitch (job.cols) };
  const int raw_plane = raw_at.pitch * tile_h;
  float *raw = smem;
  float *mid = smem + raw_plane;
  const float *h = hv.w, *v = hv.w + job.cols;
  const int x0 = blockIdx.x * KCONV_CUDA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * SEP_OUT_H;
  const int tid = threadIdx.y * KCONV_CUDA_TILE_W + threadIdx.x;
  const int lanes = KCONV_CUDA_TILE_W / SEP_RUN;
  const int hx = (tid % lanes) * SEP_RUN;
  const int tx = threadIdx.x, ty0 = threadIdx.y * SEP_RUN;
  const int x = x0 + tx;
  float acc[NCH][SEP_RUN];

#pragma unroll
  for (int c = 0; c < NCH; c++) {
    KConvCudaJob one = job;
    one.channel_offset[0] = job.channel_offset[c];
    if (c > 0)
      __syncthreads (); /* the last channel's vertical pass is done */
    kconv_cuda_load_tile<SepRawLayout, -1, DEEP> (one, raw, 1, x0 - job.ax,
        y0 - job.ay, KCONV_CUDA_TILE_W + job.cols - 1, tile_h, raw_plane,
        raw_at);
    __syncthreads ();

    /* horizontal: 4 threads a row, SEP_RUN neighbouring outputs each */
    for (int row = tid / lanes; row < tile_h; row += SEP_THREADS / lanes) {
      float a[SEP_RUN];
      /* hx is a multiple of SEP_RUN: SEP_RUN samples, then a spare word */
      slide<1> (a, h, job.cols, raw + raw_at (row, hx), SEP_RUN + 1);
#pragma unroll
      for (int r = 0; r < SEP_RUN; r++)
        mid[row * SEP_MID_PITCH + hx + r] = a[r];
    }
    __syncthreads ();

    /* vertical: SEP_RUN outputs of a column a thread */
    const float *col = mid + ty0 * SEP_MID_PITCH + tx;
    slide<SEP_MID_PITCH> (acc[c], v, job.rows, col, SEP_RUN * SEP_MID_PITCH);
  }

  kconv_cuda_store_column<NCH, SEP_RUN, -1, -1, DEEP> (job, x, y0 + ty0, acc);
}

template <int NCH, bool DEEP>
static cudaError_t
launch_separable (const KConvCudaJob &job, const KConvCudaWeights *hv,
    cudaStream_t stream)
{
  size_t smem = kconv_cuda_separable_smem (NCH, job.cols, job.rows);
  static KConvCudaSmemAllowed raised;
  cudaError_t err =
      kconv_cuda_allow_smem (separable_kernel<NCH, DEEP>, smem, &raised);
  if (err != cudaSuccess)
    return err;
  dim3 block (KCONV_CUDA_TILE_W, KCONV_CUDA_BLOCK_ROWS);
  dim3 grid (kconv_div_up (job.width, KCONV_CUDA_TILE_W),
      kconv_cuda_grid_rows (job, SEP_OUT_H));
  separable_kernel<NCH, DEEP><<<grid, block, smem, stream>>> (job, *hv);
  return cudaGetLastError ();
}

template <bool DEEP>
static cudaError_t
launch_any_separable (const KConvCudaJob *job, const KConvCudaWeights *hv,
    cudaStream_t stream)
{
  switch (job->n_channels) {
  case 1:
    return launch_separable<1, DEEP> (*job, hv, stream);
  case 2:
    return launch_separable<2, DEEP> (*job, hv, stream);
  case 3:
    return launch_separable<3, DEEP> (*job, hv, stream);
  case 4:
    return launch_separable<4, DEEP> (*job, hv, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

KConvStatus
kconv_cuda_launch_separable (const KConvCudaJob *job,
    const KConvCudaWeights *hv, cudaStream_t stream)
{
  if (kconv_cuda_separable64_fits (job))
    return kconv_cuda_launch_separable64 (job, hv, stream);
  return kconv_cuda_status (job->depth > 8
                                ? launch_any_separable<true> (job, hv, stream)
                                : launch_any_separable<false> (job, hv, stream),
      "kconv_cuda_launch_separable");
}
