/* kconv: template matching of 16-bit samples on CUDA
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The region's words are first unpacked into a plane of values.  Each
 * thread then sums ROWS positions of one column: it walks down the frame
 * rows those positions cover, and each value it loads (neighbouring
 * threads load neighbouring values) meets the template row of every
 * position that frame row falls in, from shared memory (every thread of a
 * warp reads the same value: a broadcast).  A template row's sum stays in
 * 32 bits (at most 65536 values of at most 65535), added to the 64-bit
 * sum after each frame row.  The whole map is written, and the best
 * position is found over it in two steps: the least sum, then the least
 * y << 16 | x among the positions that have it (the tie rule).
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "kmatch-cuda-deep.h"
#include "kmatch-cuda-deep-private.h"
#include "kconv-cuda.h"
#include "kconv-error.h"

#define THREADS 128
#define ROWS 8 /* positions a thread sums, down a column */
/* template bytes staged in shared memory without opting in */
#define SMEM_BYTES (48 * 1024)

__global__ void
unpack_kernel (const uint8_t *__restrict__ raw, size_t raw_pitch,
    KMatchCudaWords words, uint16_t *__restrict__ values, int pitch, int w,
    int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h)
    return;
  const uint8_t *p =
      raw + (size_t) y * raw_pitch + (size_t) x * words.pixel_stride;
  const unsigned hi = p[words.big_endian ? 0 : 1],
                 lo = p[words.big_endian ? 1 : 0];
  values[(size_t) y * pitch + x] =
      (uint16_t) (((hi << 8 | lo) >> words.shift) & ((1u << words.depth) - 1));
}

/* SMEM: the template (and its mask) staged in shared memory; else read
 * through the L1 cache, a broadcast either way. */
template <bool SMEM, bool MASKED>
__global__ void
__launch_bounds__ (THREADS)
    sad_deep_kernel (const uint16_t *__restrict__ values, int pitch, int mw,
        int mh, const uint16_t *__restrict__ tmpl_g,
        const uint16_t *__restrict__ keep_g, int tw, int th,
        uint64_t *__restrict__ map, unsigned long long *least)
{
  extern __shared__ uint16_t staged[];
  const uint16_t *tmpl = tmpl_g, *keep = keep_g;
  if (SMEM) {
    const int n = tw * th;
    for (int i = threadIdx.x; i < n; i += THREADS)
      staged[i] = tmpl_g[i];
    if (MASKED)
      for (int i = threadIdx.x; i < n; i += THREADS)
        staged[n + i] = keep_g[i];
    __syncthreads ();
    tmpl = staged;
    keep = staged + n;
  }
  const int x = blockIdx.x * THREADS + threadIdx.x, y0 = blockIdx.y * ROWS;
  uint64_t sum[ROWS] = {};
  if (x < mw) {
    const int rows = min (th + ROWS - 1, mh + th - 1 - y0);
    for (int jj = 0; jj < rows; jj++) {
      /* frame row y0 + jj is template row jj - r of position y0 + r */
      bool meets[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        meets[r] = jj - r >= 0 && jj - r < th;
      const uint16_t *f = values + (size_t) (y0 + jj) * pitch + x;
      uint32_t part[ROWS] = {};
#pragma unroll 4
      for (int i = 0; i < tw; i++) {
        const uint32_t v = __ldg (f + i);
#pragma unroll
        for (int r = 0; r < ROWS; r++)
          if (meets[r]) {
            const int at = (jj - r) * tw + i;
            const uint32_t fv = MASKED ? v & keep[at] : v;
            part[r] = __usad (fv, tmpl[at], part[r]);
          }
      }
#pragma unroll
      for (int r = 0; r < ROWS; r++)
        sum[r] += part[r];
    }
  }
  unsigned long long low = ~0ull;
#pragma unroll
  for (int r = 0; r < ROWS; r++)
    if (x < mw && y0 + r < mh) {
      map[(size_t) (y0 + r) * mw + x] = sum[r];
      low = sum[r] < low ? sum[r] : low;
    }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, low, o);
    low = other < low ? other : low;
  }
  if ((threadIdx.x & 31) == 0 && low != ~0ull)
    atomicMin (least, low);
}

/* The first position (least y << 16 | x) whose sum is the least */
__global__ void
first_least_kernel (const uint64_t *__restrict__ map, int mw, int mh,
    unsigned long long *best)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  unsigned long long key = ~0ull;
  if (x < mw && y < mh && map[(size_t) y * mw + x] == best[0])
    key = (unsigned long long) y << 16 | (unsigned long long) x;
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin (best + 1, key);
}

extern "C" KConvStatus
kmatch_cuda_deep_new (int device_id, KMatchCudaDeep **out)
{
  *out = NULL;
  KMatchCudaDeep *d = (KMatchCudaDeep *) calloc (1, sizeof *d);
  if (!d)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  d->device = device_id < 0 ? 0 : device_id;
  KConvStatus st = kconv_cuda_use_device (d->device);
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaStreamCreateWithFlags (&d->stream,
                                cudaStreamNonBlocking),
        "cudaStreamCreateWithFlags");
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaMalloc (&d->d_best, 2 * sizeof *d->d_best),
        "cudaMalloc");
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaHostAlloc (&d->h_best, 2 * sizeof *d->h_best,
                                cudaHostAllocPortable),
        "cudaHostAlloc");
  if (st != KCONV_OK) {
    kmatch_cuda_deep_free (d);
    return st;
  }
  *out = d;
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_deep_set_template (KMatchCudaDeep *d, const uint16_t *tmpl, int tw,
    int th, const uint8_t *mask)
{
  const size_t n = (size_t) tw * th;
  uint16_t *t = (uint16_t *) malloc (n * sizeof *t);
  uint16_t *k = mask ? (uint16_t *) malloc (n * sizeof *k) : NULL;
  if (!t || (mask && !k)) {
    free (t);
    free (k);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < n; i++) {
    t[i] = mask && !mask[i] ? 0 : tmpl[i];
    if (k)
      k[i] = mask[i] ? 0xffff : 0;
  }
  KConvStatus st = kconv_cuda_use_device (d->device);
  /* a search still queued reads the template being replaced */
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaStreamSynchronize (d->stream),
        "cudaStreamSynchronize");
  if (st == KCONV_OK) {
    cudaFree (d->d_tmpl);
    cudaFree (d->d_keep);
    d->d_tmpl = d->d_keep = NULL;
    d->tw = d->th = 0;
    st = kconv_cuda_status (cudaMalloc (&d->d_tmpl, n * sizeof *t),
        "cudaMalloc");
  }
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaMemcpy (d->d_tmpl, t, n * sizeof *t,
                                cudaMemcpyHostToDevice),
        "cudaMemcpy");
  if (st == KCONV_OK && k)
    st = kconv_cuda_status (cudaMalloc (&d->d_keep, n * sizeof *k),
        "cudaMalloc");
  if (st == KCONV_OK && k)
    st = kconv_cuda_status (cudaMemcpy (d->d_keep, k, n * sizeof *k,
                                cudaMemcpyHostToDevice),
        "cudaMemcpy");
  /* copies from pageable memory may return before their DMA ends, and the
   * matcher's stream does not wait for the legacy one */
  if (st == KCONV_OK)
    st = kconv_cuda_status (cudaStreamSynchronize (0), "cudaStreamSynchronize");
  free (t);
  free (k);
  if (st != KCONV_OK)
    return st;
  d->tw = tw;
  d->th = th;
  d->generation++;
  return KCONV_OK;
}

KConvStatus
kmatch_cuda_deep_stage (KMatchCudaDeep *d, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaWords *words, int mw,
    int mh, int *pitch_out)
{
  const int w = mw + d->tw - 1, h = mh + d->th - 1;
  /* (room past the last value of a row for the widest reads) */
  const int pitch = (w + 8 + 63) / 64 * 64;
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_values, &d->values_size,
      (size_t) pitch * h * sizeof (uint16_t)));
  const uint8_t *raw = frame;
  size_t raw_pitch = stride;
  if (!on_device) {
    /* the region's rows as they lie: the last sample's word ends the row */
    const size_t row = (size_t) (w - 1) * words->pixel_stride + 2;
    raw_pitch = (row + 127) / 128 * 128;
    KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_raw, &d->raw_size,
        raw_pitch * h));
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (d->d_raw, raw_pitch, frame, stride,
        row, h, cudaMemcpyHostToDevice, d->stream));
    kconv_cuda_count_transfer (1, row * h);
    raw = d->d_raw;
  }
  unpack_kernel<<<dim3 ((w + 127) / 128, h), 128, 0, d->stream>>> (raw,
      raw_pitch, *words, d->d_values, pitch, w, h);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  *pitch_out = pitch;
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_deep_search (KMatchCudaDeep *d, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaWords *words, int mw,
    int mh, int *best_x, int *best_y, uint64_t *best_sad, uint64_t *sad_map)
{
  if (!d->d_tmpl)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no template set");
  if (mw > 65535 || mh > 65535 || d->tw > 65536)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "the GPU's search covers at most 65535x65535 positions and "
        "templates 65536 wide, not %dx%d positions, %d wide",
        mw, mh, d->tw);
  KCONV_TRY (kconv_cuda_use_device (d->device));
  int pitch;
  KCONV_TRY (kmatch_cuda_deep_stage (d, frame, stride, on_device, words, mw, mh,
      &pitch));
  KCONV_TRY (kconv_cuda_grow_zeroed ((void **) &d->d_map, &d->map_size,
      (size_t) mw * mh * sizeof (uint64_t)));
  KCONV_CUDA_CHECK (
      cudaMemsetAsync (d->d_best, 0xff, 2 * sizeof *d->d_best, d->stream));
  const bool masked = d->d_keep != NULL;
  const size_t smem =
      (size_t) d->tw * d->th * sizeof (uint16_t) * (masked ? 2 : 1);
  const bool staged = smem <= SMEM_BYTES;
  const dim3 grid ((mw + THREADS - 1) / THREADS, (mh + ROWS - 1) / ROWS);
  void (*fn) (const uint16_t *, int, int, int, const uint16_t *,
      const uint16_t *, int, int, uint64_t *, unsigned long long *) =
      masked ? (staged ? sad_deep_kernel<true, true>
                       : sad_deep_kernel<false, true>)
             : (staged ? sad_deep_kernel<true, false>
                       : sad_deep_kernel<false, false>);
  fn<<<grid, THREADS, staged ? smem : 0, d->stream>>> (d->d_values, pitch, mw,
      mh, d->d_tmpl, d->d_keep, d->tw, d->th, d->d_map, d->d_best);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  first_least_kernel<<<dim3 ((mw + 255) / 256, mh), 256, 0,
      d->stream>>> (d->d_map, mw, mh, d->d_best);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  KCONV_CUDA_CHECK (cudaMemcpyAsync (d->h_best, d->d_best,
      2 * sizeof *d->d_best, cudaMemcpyDeviceToHost, d->stream));
  if (sad_map)
    KCONV_CUDA_CHECK (cudaMemcpyAsync (sad_map, d->d_map,
        (size_t) mw * mh * sizeof (uint64_t), cudaMemcpyDeviceToHost,
        d->stream));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (d->stream));
  if (sad_map)
    kconv_cuda_count_transfer (0, (size_t) mw * mh * sizeof (uint64_t));
  *best_sad = d->h_best[0];
  *best_y = (int) (d->h_best[1] >> 16);
  *best_x = (int) (d->h_best[1] & 0xffff);
  return KCONV_OK;
}

extern "C" void
kmatch_cuda_deep_free (KMatchCudaDeep *d)
{
  if (!d)
    return;
  (void) kconv_cuda_use_device (d->device);
  if (d->stream) {
    cudaStreamSynchronize (d->stream);
    cudaStreamDestroy (d->stream);
  }
  cudaFree (d->d_tmpl);
  cudaFree (d->d_keep);
  cudaFree (d->d_values);
  cudaFree (d->d_raw);
  cudaFree (d->d_map);
  cudaFree (d->d_best);
  kmatch_cuda_deep_scored_release (d);
  if (d->h_best)
    cudaFreeHost (d->h_best);
  free (d);
}
