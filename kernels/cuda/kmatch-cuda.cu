/* kconv: template matching on CUDA
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each thread computes the SAD of GROUP neighbouring positions on each of
 * ROWS rows, four bytes at a time with the GPU's packed byte instruction
 * (VABSDIFF4, accumulating), against copies of the template pre-shifted to
 * each position's byte alignment.  The template sits in shared memory (every
 * thread reads the same words: a broadcast).  The
 * minimum is reduced on the GPU as one 64-bit key, sad << 32 | y << 16 | x,
 * so an atomicMin also applies the tie rule (smallest y, then x): only that
 * key crosses PCIe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "kmatch-cuda.h"
#include "kconv-cuda.h"
#include "kconv-error.h"

#define GROUP 4 /* neighbouring positions per thread */
#define ROWS 4  /* rows of them */

/* acc + the sum of |a - b| over four byte pairs, in one instruction (the
 * accumulating form of what __vsadu4 returns) */
__device__ __forceinline__ uint32_t
sad4_add (uint32_t a, uint32_t b, uint32_t acc)
{
  uint32_t r;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(acc));
  return r;
}
#define THREADS 128

struct KMatchCuda
{
  int device;
  int tw, th, ch, words; /* words: a template row, rounded up */
  uint4 *d_tmpl;         /* th x (words + 1), four shifted copies */
  uint4 *d_mask;         /* words + 1: the template's bytes in each */
  uint4 *d_pixel_mask;   /* th x (words + 1), shifted like d_tmpl: the
                          * bytes that count, or NULL: all do */
  uint8_t *d_frame;
  size_t frame_size;
  uint8_t *d_raw; /* the region as it lies in the frame */
  size_t raw_size;
  int frame_pitch;
  uint64_t *d_map, *d_best;
  size_t map_size;
  cudaStream_t stream;
};

/* Position k of a thread's group starts CH * k bytes after the first,
 * which is word-aligned (positions come in groups of GROUP = 4): word
 * q_k = CH * k / 4, byte r_k = CH * k % 4.  Rather than shifting the frame
 * for each position, the template is stored shifted by r_k (four copies,
 * interleaved so one 16-byte load fetches a word of each), so a frame word
 * needs no permute: only the first and last words of a row are masked to
 * the template's bytes. */
template <int CH>
__device__ __forceinline__ int
group_word (int k)
{
  return CH * k / 4;
}

/* Column i of the template (word i of every row) against ROWS x GROUP
 * positions.  The thread walks down the frame keeping the words of ROWS
 * consecutive rows in registers, so each step loads one template word and
 * one frame row's words and feeds 4 * ROWS packed differences. */
template <int CH, bool MASKED, bool PIXEL_MASK = false>
__device__ __forceinline__ void
sad_column (const uint32_t *__restrict__ col, int pitch_words,
    const uint4 *__restrict__ tcol, int wp, int th, uint4 mask,
    uint32_t (&sad)[ROWS][GROUP], const uint4 *__restrict__ pcol = NULL)
{
  const uint32_t m[GROUP] = { mask.x, mask.y, mask.z, mask.w };
  uint32_t win[ROWS][GROUP]; /* frame words of rows j .. j + ROWS - 1 */
#pragma unroll
  for (int r = 0; r < ROWS - 1; r++)
#pragma unroll
    for (int k = 0; k < GROUP; k++) {
      const uint32_t f = __ldg (col + r * pitch_words + group_word<CH> (k));
      win[r + 1][k] = MASKED ? f & m[k] : f;
    }
  const uint32_t *next = col + (ROWS - 1) * pitch_words;
#pragma unroll 4 /* ROWS: the window rotates in place */
  for (int j = 0; j < th; j++, next += pitch_words) {
#pragma unroll
    for (int r = 0; r < ROWS - 1; r++)
#pragma unroll
      for (int k = 0; k < GROUP; k++)
        win[r][k] = win[r + 1][k];
#pragma unroll
    for (int k = 0; k < GROUP; k++) {
      const uint32_t f = __ldg (next + group_word<CH> (k));
      win[ROWS - 1][k] = MASKED ? f & m[k] : f;
    }
    const uint4 t4 = tcol[j * wp];
    const uint32_t t[GROUP] = { t4.x, t4.y, t4.z, t4.w };
    if (PIXEL_MASK) {
      /* template row j's mask on each frame row it meets (the template's
       * own masked bytes are 0 already) */
      const uint4 p4 = pcol[j * wp];
      const uint32_t p[GROUP] = { p4.x, p4.y, p4.z, p4.w };
#pragma unroll
      for (int r = 0; r < ROWS; r++)
#pragma unroll
        for (int k = 0; k < GROUP; k++)
          sad[r][k] = sad4_add (win[r][k] & p[k], t[k], sad[r][k]);
    } else {
#pragma unroll
      for (int r = 0; r < ROWS; r++)
#pragma unroll
        for (int k = 0; k < GROUP; k++)
          sad[r][k] = sad4_add (win[r][k], t[k], sad[r][k]);
    }
  }
}

/* SMEM: the template is staged in shared memory; templates too large for
 * it are read through the L1 cache (every thread of a warp reads the same
 * address, so it is a broadcast either way). */
/* PIXEL_MASK: only the template's bytes in pmask_g count (a template with
 * transparency); every word is masked, row by row, so the column masks of
 * the edge words are not needed. */
template <int CH, bool SMEM, bool PIXEL_MASK>
__global__ void
__launch_bounds__ (THREADS) sad_kernel (const uint8_t *__restrict__ frame,
    int pitch, int mw, int mh, const uint4 *__restrict__ tmpl_g,
    const uint4 *__restrict__ mask_g, const uint4 *__restrict__ pmask_g,
    int words, int th, uint64_t *map, uint64_t *best)
{
  extern __shared__ uint4 smem[];
  const int wp = words + 1;
  const uint4 *tmpl = tmpl_g, *mask = mask_g, *pmask = pmask_g;
  if (SMEM) {
    uint4 *st = smem, *sm = smem + (size_t) th * wp, *sp = sm + wp;
    for (int i = threadIdx.x; i < th * wp; i += THREADS)
      st[i] = tmpl_g[i];
    for (int i = threadIdx.x; i < wp; i += THREADS)
      sm[i] = mask_g[i];
    if (PIXEL_MASK)
      for (int i = threadIdx.x; i < th * wp; i += THREADS)
        sp[i] = pmask_g[i];
    __syncthreads ();
    tmpl = st;
    mask = sm;
    pmask = sp;
  }

  const int x0 = (blockIdx.x * THREADS + threadIdx.x) * GROUP;
  const int y0 = blockIdx.y * ROWS;
  uint32_t sad[ROWS][GROUP] = {};
  if (x0 < mw) {
    const int pw = pitch / 4;
    const uint32_t *col =
        (const uint32_t *) (frame + (size_t) y0 * pitch) + x0 * CH / 4;
    if (PIXEL_MASK) {
      for (int i = 0; i <= words; i++)
        sad_column<CH, false, true> (col + i, pw, tmpl + i, wp, th, mask[i],
            sad, pmask + i);
    } else {
      /* words 0, words - 1 and words can hold bytes outside the template
       * for some copy; the ones between are whole for every copy */
      sad_column<CH, true> (col, pw, tmpl, wp, th, mask[0], sad);
      for (int i = 1; i < words - 1; i++)
        sad_column<CH, false> (col + i, pw, tmpl + i, wp, th, mask[i], sad);
      if (words >= 2)
        sad_column<CH, true> (col + words - 1, pw, tmpl + words - 1, wp, th,
            mask[words - 1], sad);
      sad_column<CH, true> (col + words, pw, tmpl + words, wp, th, mask[words],
          sad);
    }
  }

  uint64_t key = ~0ull;
#pragma unroll
  for (int r = 0; r < ROWS; r++)
#pragma unroll
    for (int k = 0; k < GROUP; k++) {
      const int x = x0 + k, y = y0 + r;
      if (x < mw && y < mh) {
        uint64_t kk = (uint64_t) sad[r][k] << 32 | (uint64_t) y << 16 | x;
        if (map)
          map[(size_t) y * mw + x] = sad[r][k];
        key = kk < key ? kk : key;
      }
    }
  for (int o = 16; o > 0; o /= 2) {
    uint64_t other = __shfl_down_sync (0xffffffffu, key, o);
    key = other < key ? other : key;
  }
  if ((threadIdx.x & 31) == 0 && key != ~0ull)
    atomicMin ((unsigned long long *) best, (unsigned long long) key);
}

extern "C" KConvStatus
kmatch_cuda_new (int device_id, KMatchCuda **out)
{
  *out = NULL;
  KMatchCuda *g = (KMatchCuda *) calloc (1, sizeof *g);
  if (!g)
    return KCONV_ERROR_OUT_OF_MEMORY;
  g->device = device_id < 0 ? 0 : device_id;
  cudaError_t e = (cudaError_t) kconv_cuda_use_device (g->device);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags (&g->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaMalloc (&g->d_best, sizeof (uint64_t));
  if (e != cudaSuccess) {
    kmatch_cuda_free (g);
    return kconv_fail (KCONV_ERROR_DEVICE,
        "setting up the GPU matcher: %s "
        "(%s)",
        cudaGetErrorName (e), cudaGetErrorString (e));
  }
  *out = g;
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_set_template (KMatchCuda *g, const uint8_t *tmpl, int tw, int th,
    int ch, const uint8_t *byte_mask)
{
  /* 65535 is the largest x the key holds, and y the grid's */
  if (ch != 1 && ch != 3)
    return KCONV_ERROR_INVALID_ARGUMENT;
  const int row = tw * ch, words = (row + 3) / 4, wp = words + 1;
  /* copy k: the row's bytes start at byte CH * k % 4 */
  uint8_t *t = (uint8_t *) calloc ((size_t) th * wp, 16);
  uint8_t *mk = (uint8_t *) calloc (wp, 16);
  uint8_t *pm = byte_mask ? (uint8_t *) calloc ((size_t) th * wp, 16) : NULL;
  if (!t || !mk || (byte_mask && !pm)) {
    free (t);
    free (mk);
    free (pm);
    return KCONV_ERROR_OUT_OF_MEMORY;
  }
  for (int k = 0; k < GROUP; k++) {
    const int r = ch * k % 4;
    for (int b = 0; b < row; b++) {
      const int at = r + b, word = at / 4, byte = at % 4;
      for (int j = 0; j < th; j++) {
        const size_t to = ((size_t) j * wp + word) * 16 + k * 4 + byte;
        const uint8_t keep = byte_mask ? byte_mask[(size_t) j * row + b] : 0xff;
        t[to] = tmpl[(size_t) j * row + b] & keep;
        if (pm)
          pm[to] = keep;
      }
      mk[(size_t) word * 16 + k * 4 + byte] = 0xff;
    }
  }
  KCONV_CUDA_CHECK ((cudaError_t) kconv_cuda_use_device (g->device));
  cudaFree (g->d_tmpl);
  cudaFree (g->d_mask);
  cudaFree (g->d_pixel_mask);
  g->d_tmpl = NULL;
  g->d_mask = NULL;
  g->d_pixel_mask = NULL;
  cudaError_t e = cudaMalloc (&g->d_tmpl, (size_t) th * wp * 16);
  if (e == cudaSuccess)
    e = cudaMalloc (&g->d_mask, (size_t) wp * 16);
  if (e == cudaSuccess && pm)
    e = cudaMalloc (&g->d_pixel_mask, (size_t) th * wp * 16);
  if (e == cudaSuccess)
    e = cudaMemcpy (g->d_tmpl, t, (size_t) th * wp * 16,
        cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy (g->d_mask, mk, (size_t) wp * 16, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && pm)
    e = cudaMemcpy (g->d_pixel_mask, pm, (size_t) th * wp * 16,
        cudaMemcpyHostToDevice);
  free (t);
  free (mk);
  free (pm);
  KCONV_CUDA_CHECK (e);
  g->tw = tw;
  g->th = th;
  g->ch = ch;
  g->words = words;
  return KCONV_OK;
}

/* The compared samples of a w x h region of raw pixels, packed as the
 * search reads them: CH bytes a pixel, or the luma of R, G, B. */
template <int CH, bool LUMA>
__global__ void
gather_kernel (const uint8_t *raw, size_t raw_pitch, KMatchCudaLayout lay,
    uint8_t *dst, int pitch, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h)
    return;
  const uint8_t *p =
      raw + (size_t) y * raw_pitch + (size_t) x * lay.pixel_stride;
  uint8_t *d = dst + (size_t) y * pitch + (size_t) x * CH;
  if (LUMA) {
    d[0] = (uint8_t) ((77 * p[lay.offsets[0]] + 150 * p[lay.offsets[1]] +
                          29 * p[lay.offsets[2]] + 128) >>
                      8);
    return;
  }
#pragma unroll
  for (int c = 0; c < CH; c++)
    d[c] = p[lay.offsets[c]];
}

/* Puts the region's compared samples into d_frame (pitch bytes a row). */
static KConvStatus
upload_region (KMatchCuda *g, const uint8_t *frame, ptrdiff_t stride,
    int on_device, const KMatchCudaLayout *layout, int w, int h, int pitch)
{
  if (!layout) {
    KCONV_CUDA_CHECK (
        cudaMemcpy2DAsync (g->d_frame, pitch, frame, stride, (size_t) w * g->ch,
            h, on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice,
            g->stream));
    if (!on_device)
      kconv_cuda_count_transfer (1, (size_t) w * g->ch * h);
    return KCONV_OK;
  }
  const size_t row = (size_t) w * layout->pixel_stride;
  size_t raw_pitch = (row + 127) / 128 * 128;
  const uint8_t *raw = g->d_raw;
  if (on_device) {
    /* gathered where it lies */
    raw = frame;
    raw_pitch = stride;
  } else if (raw_pitch * h > g->raw_size) {
    cudaFree (g->d_raw);
    g->d_raw = NULL;
    g->raw_size = 0;
    KCONV_CUDA_CHECK (cudaMalloc (&g->d_raw, raw_pitch * h));
    g->raw_size = raw_pitch * h;
  }
  if (!on_device) {
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (g->d_raw, raw_pitch, frame, stride,
        row, h, cudaMemcpyHostToDevice, g->stream));
    kconv_cuda_count_transfer (1, row * h);
    raw = g->d_raw;
  }
  dim3 grid ((w + 127) / 128, h);
  if (layout->luma)
    gather_kernel<1, true><<<grid, 128, 0, g->stream>>> (raw, raw_pitch,
        *layout, g->d_frame, pitch, w, h);
  else if (g->ch == 1)
    gather_kernel<1, false><<<grid, 128, 0, g->stream>>> (raw, raw_pitch,
        *layout, g->d_frame, pitch, w, h);
  else
    gather_kernel<3, false><<<grid, 128, 0, g->stream>>> (raw, raw_pitch,
        *layout, g->d_frame, pitch, w, h);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_search (KMatchCuda *g, const uint8_t *frame, ptrdiff_t stride,
    int on_device, const KMatchCudaLayout *layout, int mw, int mh, int *best_x,
    int *best_y, uint64_t *best_sad, uint64_t *sad_map)
{
  if (!g->d_tmpl || mw > 65535 || mh > 65535)
    return KCONV_ERROR_INVALID_ARGUMENT;
  KCONV_CUDA_CHECK ((cudaError_t) kconv_cuda_use_device (g->device));
  const int rw = (mw + g->tw - 1) * g->ch, rh = mh + g->th - 1;
  /* rows padded so the word window may read past the last position, and
   * ROWS - 1 rows more for a thread's rows beyond the last */
  const int pitch = (rw + 64 + 127) / 128 * 128;
  const size_t need = (size_t) pitch * (rh + ROWS - 1);
  if (need > g->frame_size) {
    cudaFree (g->d_frame);
    g->d_frame = NULL;
    g->frame_size = 0;
    KCONV_CUDA_CHECK (cudaMalloc (&g->d_frame, need));
    KCONV_CUDA_CHECK (cudaMemset (g->d_frame, 0, need));
    g->frame_size = need;
  }
  if (sad_map && (size_t) mw * mh > g->map_size) {
    cudaFree (g->d_map);
    g->d_map = NULL;
    g->map_size = 0;
    KCONV_CUDA_CHECK (cudaMalloc (&g->d_map, sizeof (uint64_t) * mw * mh));
    g->map_size = (size_t) mw * mh;
  }
  KConvStatus st = upload_region (g, frame, stride, on_device, layout,
      mw + g->tw - 1, rh, pitch);
  if (st != KCONV_OK)
    return st;
  KCONV_CUDA_CHECK (
      cudaMemsetAsync (g->d_best, 0xff, sizeof (uint64_t), g->stream));
  dim3 grid ((mw + THREADS * GROUP - 1) / (THREADS * GROUP),
      (mh + ROWS - 1) / ROWS);
  const bool pixel_mask = g->d_pixel_mask != NULL;
  size_t smem =
      ((size_t) g->th * (pixel_mask ? 2 : 1) + 1) * (g->words + 1) * 16;
  uint64_t *map = sad_map ? g->d_map : NULL;
  int optin = 0;
  KCONV_CUDA_CHECK (cudaDeviceGetAttribute (&optin,
      cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device));
  const bool staged = smem <= (size_t) optin;
  void (*fn) (const uint8_t *, int, int, int, const uint4 *, const uint4 *,
      const uint4 *, int, int, uint64_t *, uint64_t *);
  if (g->ch == 1)
    fn = pixel_mask
             ? (staged ? sad_kernel<1, true, true> : sad_kernel<1, false, true>)
             : (staged ? sad_kernel<1, true, false>
                       : sad_kernel<1, false, false>);
  else
    fn = pixel_mask
             ? (staged ? sad_kernel<3, true, true> : sad_kernel<3, false, true>)
             : (staged ? sad_kernel<3, true, false>
                       : sad_kernel<3, false, false>);
  /* the limit is the function's, for the whole process: always the
   * device's most, so that matchers on other threads, with other templates,
   * never lower it under a launch of this one (a launch over the limit
   * fails with cudaErrorInvalidValue) */
  if (staged)
    KCONV_CUDA_CHECK (cudaFuncSetAttribute (fn,
        cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  fn<<<grid, THREADS, staged ? smem : 0, g->stream>>> (g->d_frame, pitch, mw,
      mh, g->d_tmpl, g->d_mask, g->d_pixel_mask, g->words, g->th, map,
      g->d_best);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  uint64_t key;
  KCONV_CUDA_CHECK (cudaMemcpyAsync (&key, g->d_best, sizeof key,
      cudaMemcpyDeviceToHost, g->stream));
  if (sad_map)
    KCONV_CUDA_CHECK (cudaMemcpyAsync (sad_map, g->d_map,
        sizeof (uint64_t) * mw * mh, cudaMemcpyDeviceToHost, g->stream));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (g->stream));
  *best_sad = key >> 32;
  *best_y = (int) ((key >> 16) & 0xffff);
  *best_x = (int) (key & 0xffff);
  return KCONV_OK;
}

extern "C" void
kmatch_cuda_free (KMatchCuda *g)
{
  if (!g)
    return;
  (void) kconv_cuda_use_device (g->device);
  cudaFree (g->d_tmpl);
  cudaFree (g->d_mask);
  cudaFree (g->d_pixel_mask);
  cudaFree (g->d_frame);
  cudaFree (g->d_raw);
  cudaFree (g->d_map);
  cudaFree (g->d_best);
  if (g->stream)
    cudaStreamDestroy (g->stream);
  free (g);
}
