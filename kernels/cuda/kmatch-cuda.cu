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
#include "kmatch-cuda-prune.h"
#include "kmatch-cuda-methods.h"
#include "kmatch-cuda-fft.h"
#include "kconv-cuda.h"
#include "kconv-cuda-fence.cuh"
#include "kconv-cuda-common.cuh"
#include "kconv-error.h"
#include "kconv-team.h"
#include "kconv-tuning.h"

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
  KConvGpuWait wait;     /* how its frames in flight are waited for */
  int smem_optin;        /* the device's shared memory a block may opt in to */
  int tw, th, ch, words; /* words: a template row, rounded up */
  uint4 *d_tmpl;         /* th x (words + 1), four shifted copies */
  uint4 *d_mask;         /* words + 1: the template's bytes in each */
  uint4 *d_pixel_mask;   /* th x (words + 1), shifted like d_tmpl: the
                          * bytes that count, or NULL: all do */
  int2 *d_mask_rows;     /* with it, words + 1: each column's rows that
                          * count, first and how many */
  uint8_t *d_plain;      /* the template's samples as they are */
  uint8_t *d_plain_mask; /* 0xff where they count, or NULL: all do */
  KMatchPruneBlocks pb;  /* its blocks, for the bounds that prune */
  uint64_t *d_map;       /* the whole map, when one is asked for */
  size_t map_size;
  /* ssd, ncc and zncc (kmatch-cuda-methods.cu): the sum of F T at every
   * position, the scratch after it, and the picks' sums followed by their
   * count (the x of one more) */
  uint64_t *d_ft;
  size_t ft_size;
  KMatchCudaFft *fft; /* the same sums through the FFT, for large templates */
  uint8_t *d_scratch;
  size_t scratch_size;
  KMatchSums *h_sums, *dh_sums; /* page-locked, and where the GPU sees it */
  size_t sums_size;
  uint8_t *d_shared; /* a frame several matchers search (kmatch_cuda_upload) */
  size_t shared_size;
  uint8_t *h_window; /* page-locked: windows on their way back */
  size_t window_size;
  /* uploads on one stream, the searches on the other: the upload of one
   * frame overlaps the search of the one before */
  cudaStream_t stream, up;
  KMatchCudaSlot *own; /* for searches waited for at once */
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
 * one frame row's words and feeds 4 * ROWS packed differences (PRODUCT:
 * packed products, dp4a, for the correlation of the other methods; the
 * template's bytes outside it are 0, so no frame word needs masking). */
template <int CH, bool MASKED, bool PIXEL_MASK = false, bool PRODUCT = false>
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
          sad[r][k] = PRODUCT ? __dp4a (win[r][k], t[k], sad[r][k])
                              : sad4_add (win[r][k], t[k], sad[r][k]);
    }
  }
}

/* SMEM: the template is staged in shared memory; templates too large for
 * it are read through the L1 cache (every thread of a warp reads the same
 * address, so it is a broadcast either way). */
/* PIXEL_MASK: only the template's bytes in pmask_g count (a template with
 * transparency); every word is masked, row by row, so the column masks of
 * the edge words are not needed; rows_g gives each column's first row
 * with a byte that counts and how many rows from there have any. */
/* group_least, when not NULL: each thread's group of positions' least
 * key (bound, y, x), and thresh the key (SAD, y, x) of one position
 * (kmatch-cuda-prune.cu); a thread whose key is over it has nothing to
 * find, and a block whose threads all have nothing to find stops at once.
 * Where no more than left_cap groups are left (left[0]), sad_left sums
 * them instead and this kernel stops at once. */
template <int CH, bool SMEM, bool PIXEL_MASK>
__global__ void
__launch_bounds__ (THREADS)
    sad_kernel (const uint8_t *__restrict__ frame, int pitch, int mw, int mh,
        const uint4 *__restrict__ tmpl_g, const uint4 *__restrict__ mask_g,
        const uint4 *__restrict__ pmask_g, int words, int th, uint64_t *map,
        uint64_t *best, const uint64_t *__restrict__ group_least,
        const uint64_t *__restrict__ thresh, const int2 *__restrict__ rows_g,
        const uint32_t *__restrict__ left, uint32_t left_cap)
{
  extern __shared__ uint4 smem[];
  const int wp = words + 1;
  const int x0 = (blockIdx.x * THREADS + threadIdx.x) * GROUP;
  const int y0 = blockIdx.y * ROWS;
  bool alive = true;
  if (group_least) {
    if (*left <= left_cap)
      return;
    /* a thread's positions are the pruning's group */
    static_assert (GROUP == 4 && ROWS == 4, "groups of 4 x 4 positions");
    const int gw = (mw + 3) / 4, gx = x0 / 4;
    alive = gx < gw && group_least[(size_t) blockIdx.y * gw + gx] <= *thresh;
    if (!__syncthreads_or (alive))
      return;
  }
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

  uint32_t sad[ROWS][GROUP] = {};
  if (x0 < mw && alive) {
    const int pw = pitch / 4;
    const uint32_t *col =
        (const uint32_t *) (frame + (size_t) y0 * pitch) + x0 * CH / 4;
    if (PIXEL_MASK) {
      /* each column only over the rows where it counts (a round logo's
       * transparent corners cost nothing) */
      for (int i = 0; i <= words; i++) {
        const int2 rr = __ldg (rows_g + i);
        if (rr.y > 0)
          sad_column<CH, false, true> (col + i + (size_t) rr.x * pw, pw,
              tmpl + i + rr.x * wp, wp, rr.y, mask[i], sad,
              pmask + i + rr.x * wp);
      }
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
      if (x < mw && y < mh && alive) {
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

#define LEFT_THREADS 256

/* The groups of 4 x 4 positions the bounds left (left[1 ..], left[0] of
 * them, when no more than left_cap), a block each.  On photographs they
 * are few and scattered, and in sad_kernel each was one thread's: a whole
 * template summed for 16 positions while its warp's other lanes had none.
 * Here the block's threads share a group's columns and bands of its rows,
 * and add up at the end. */
template <int CH, bool PIXEL_MASK>
__global__ void
__launch_bounds__ (LEFT_THREADS)
    sad_left (const uint8_t *__restrict__ frame, int pitch, int mw, int mh,
        const uint4 *__restrict__ tmpl, const uint4 *__restrict__ mask,
        const uint4 *__restrict__ pmask, int words, int th, uint64_t *best,
        const uint32_t *__restrict__ left, uint32_t left_cap)
{
  __shared__ uint32_t part[LEFT_THREADS / 32][ROWS * GROUP];
  const uint32_t n = *left;
  if (n > left_cap)
    return;
  const int wp = words + 1, pw = pitch / 4, gw = (mw + 3) / 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int bands = max (1, LEFT_THREADS / wp);
  const int band_rows = (th + bands - 1) / bands;
  for (uint32_t i = blockIdx.x; i < n; i += gridDim.x) {
    const uint32_t g = left[1 + i];
    const int x0 = (int) (g % gw) * GROUP, y0 = (int) (g / gw) * ROWS;
    const uint32_t *col =
        (const uint32_t *) (frame + (size_t) y0 * pitch) + x0 * CH / 4;
    uint32_t sad[ROWS][GROUP] = {};
    for (int c = threadIdx.x; c < wp * bands; c += LEFT_THREADS) {
      const int w = c % wp, j0 = c / wp * band_rows;
      const int rows = min (band_rows, th - j0);
      if (rows <= 0)
        continue;
      if (PIXEL_MASK)
        sad_column<CH, false, true> (col + w + (size_t) j0 * pw, pw,
            tmpl + w + (size_t) j0 * wp, wp, rows, mask[w], sad,
            pmask + w + (size_t) j0 * wp);
      else
        sad_column<CH, true> (col + w + (size_t) j0 * pw, pw,
            tmpl + w + (size_t) j0 * wp, wp, rows, mask[w], sad);
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int k = 0; k < GROUP; k++) {
        uint32_t v = sad[r][k];
        for (int o = 16; o > 0; o /= 2)
          v += __shfl_down_sync (0xffffffffu, v, o);
        if (lane == 0)
          part[warp][r * GROUP + k] = v;
      }
    __syncthreads ();
    if (threadIdx.x < ROWS * GROUP) {
      uint32_t total = 0;
      for (int wi = 0; wi < LEFT_THREADS / 32; wi++)
        total += part[wi][threadIdx.x];
      const int x = x0 + threadIdx.x % GROUP, y = y0 + threadIdx.x / GROUP;
      uint64_t key = x < mw && y < mh
                         ? (uint64_t) total << 32 | (uint64_t) y << 16 | x
                         : ~0ull;
      for (int o = ROWS * GROUP / 2; o > 0; o /= 2) {
        const uint64_t other = __shfl_down_sync (0xffffu, key, o);
        key = other < key ? other : key;
      }
      if (threadIdx.x == 0 && key != ~0ull)
        atomicMin ((unsigned long long *) best, (unsigned long long) key);
    }
    __syncthreads (); /* part is the next group's */
  }
}

/* The sum of F T over the template at every position, for ssd, ncc and
 * zncc: the SAD kernel's walk with products.  A column's sums fit 32 bits
 * (th * 4 * 255^2 for th <= 8192); the template's fit 64. */
template <int CH, bool SMEM>
__global__ void
__launch_bounds__ (THREADS)
    corr_kernel (const uint8_t *__restrict__ frame, int pitch, int mw, int mh,
        const uint4 *__restrict__ tmpl_g, int words, int th, uint64_t *ft)
{
  extern __shared__ uint4 smem[];
  const int wp = words + 1;
  const int x0 = (blockIdx.x * THREADS + threadIdx.x) * GROUP;
  const int y0 = blockIdx.y * ROWS;
  const uint4 *tmpl = tmpl_g;
  if (SMEM) {
    for (int i = threadIdx.x; i < th * wp; i += THREADS)
      smem[i] = tmpl_g[i];
    __syncthreads ();
    tmpl = smem;
  }
  if (x0 >= mw)
    return;
  uint64_t sum[ROWS][GROUP] = {};
  const int pw = pitch / 4;
  const uint32_t *col =
      (const uint32_t *) (frame + (size_t) y0 * pitch) + x0 * CH / 4;
  for (int i = 0; i <= words; i++) {
    uint32_t part[ROWS][GROUP] = {};
    sad_column<CH, false, false, true> (col + i, pw, tmpl + i, wp, th,
        make_uint4 (0, 0, 0, 0), part);
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int k = 0; k < GROUP; k++)
        sum[r][k] += part[r][k];
  }
#pragma unroll
  for (int r = 0; r < ROWS; r++)
#pragma unroll
    for (int k = 0; k < GROUP; k++)
      if (x0 + k < mw && y0 + r < mh)
        ft[(size_t) (y0 + r) * mw + x0 + k] = sum[r][k];
}

/* One frame's search between submission and its answer: the region's
 * samples on the device, pinned staging for frames in pageable memory, and
 * the answer's key, which lands in pinned memory. */
struct KMatchCudaSlot
{
  KConvCudaFence fence; /* after the answer's download queued */
  int ready;            /* events and the key's buffers made */
  cudaEvent_t uploaded;
  uint8_t *d_frame; /* the compared samples, packed */
  size_t frame_size;
  uint8_t *d_raw; /* the region as it lies in the frame */
  size_t raw_size;
  uint8_t *h_stage; /* pinned copy of a pageable region */
  size_t stage_size;
  uint8_t *d_prune; /* the bounds' sums (kmatch-cuda-prune.h) */
  size_t prune_size;
  /* the best key; the least bound's key, and the threshold beside it */
  uint64_t *d_best, *h_best;
};

static void
slot_release (KMatchCudaSlot *s)
{
  (void) kconv_cuda_use_device (s->fence.device);
  if (s->uploaded)
    cudaEventDestroy (s->uploaded);
  kconv_cuda_fence_release (&s->fence);
  cudaFree (s->d_frame);
  cudaFree (s->d_raw);
  cudaFree (s->d_prune);
  cudaFree (s->d_best);
  if (s->h_stage)
    cudaFreeHost (s->h_stage);
  if (s->h_best)
    cudaFreeHost (s->h_best);
  memset (s, 0, sizeof *s);
}

static KConvStatus
slot_init (KMatchCudaSlot *s, int device, KConvGpuWait wait)
{
  KConvStatus st = kconv_cuda_fence_init (&s->fence, device, wait);
  if (st != KCONV_OK)
    return st;
  KCONV_CUDA_CHECK (
      cudaEventCreateWithFlags (&s->uploaded, cudaEventDisableTiming));
  KCONV_CUDA_CHECK (cudaMalloc (&s->d_best, 3 * sizeof (uint64_t)));
  KCONV_CUDA_CHECK (
      cudaHostAlloc (&s->h_best, sizeof (uint64_t), cudaHostAllocPortable));
  s->ready = 1;
  return KCONV_OK;
}

/* Device memory (zeroed when new, so that padding the search reads past
 * is defined), or pinned memory when host, of at least need bytes in *buf */
static KConvStatus
grow (uint8_t **buf, size_t *size, size_t need, int host)
{
  if (!host)
    return kconv_cuda_grow_zeroed ((void **) buf, size, need);
  if (need <= *size)
    return KCONV_OK;
  if (*buf)
    cudaFreeHost (*buf);
  *buf = NULL;
  *size = 0;
  KCONV_CUDA_CHECK (cudaHostAlloc ((void **) buf, need, cudaHostAllocPortable));
  *size = need;
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_new (int device_id, KConvGpuWait wait, KMatchCuda **out)
{
  *out = NULL;
  KMatchCuda *g = (KMatchCuda *) calloc (1, sizeof *g);
  if (!g)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "kmatch_cuda_new: out of "
                                                  "memory");
  g->device = device_id < 0 ? 0 : device_id;
  g->wait = wait;
  cudaError_t e = kconv_cuda_use_device (g->device) == KCONV_OK
                      ? cudaSuccess
                      : cudaErrorInvalidDevice;
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags (&g->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags (&g->up, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&g->smem_optin,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device);
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
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "the GPU's search takes "
        "1 or 3 channels, not %d",
        ch);
  const int row = tw * ch, words = (row + 3) / 4, wp = words + 1;
  /* copy k: the row's bytes start at byte CH * k % 4 */
  uint8_t *t = (uint8_t *) calloc ((size_t) th * wp, 16);
  uint8_t *mk = (uint8_t *) calloc (wp, 16);
  uint8_t *pm = byte_mask ? (uint8_t *) calloc ((size_t) th * wp, 16) : NULL;
  if (!t || !mk || (byte_mask && !pm)) {
    free (t);
    free (mk);
    free (pm);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY,
        "no memory for a %dx%d "
        "template's GPU layout",
        tw, th);
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
  KCONV_TRY (kconv_cuda_use_device (g->device));
  /* searches still queued read the template being replaced */
  KCONV_CUDA_CHECK (cudaStreamSynchronize (g->stream));
  cudaFree (g->d_tmpl);
  cudaFree (g->d_mask);
  cudaFree (g->d_pixel_mask);
  cudaFree (g->d_mask_rows);
  g->d_tmpl = NULL;
  g->d_mask = NULL;
  g->d_pixel_mask = NULL;
  g->d_mask_rows = NULL;
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
  int2 *rows = pm ? (int2 *) calloc (wp, sizeof (int2)) : NULL;
  for (int w = 0; rows && w < wp; w++) {
    int lo = th, hi = -1;
    for (int j = 0; j < th; j++)
      for (int b = 0; b < 16; b++)
        if (pm[((size_t) j * wp + w) * 16 + b]) {
          lo = j < lo ? j : lo;
          hi = j;
        }
    rows[w] = make_int2 (hi < lo ? 0 : lo, hi < lo ? 0 : hi - lo + 1);
  }
  if (e == cudaSuccess && pm && !rows)
    e = cudaErrorMemoryAllocation;
  if (e == cudaSuccess && rows)
    e = cudaMalloc (&g->d_mask_rows, wp * sizeof (int2));
  if (e == cudaSuccess && rows)
    e = cudaMemcpy (g->d_mask_rows, rows, wp * sizeof (int2),
        cudaMemcpyHostToDevice);
  free (rows);
  free (t);
  free (mk);
  free (pm);
  KCONV_CUDA_CHECK (e);
  /* as it is, for the bounds that prune */
  const size_t n = (size_t) row * th;
  cudaFree (g->d_plain);
  cudaFree (g->d_plain_mask);
  g->d_plain = g->d_plain_mask = NULL;
  kmatch_cuda_fft_set_template (&g->fft, NULL, 0, 0, 0);
  KCONV_CUDA_CHECK (cudaMalloc (&g->d_plain, n));
  KCONV_CUDA_CHECK (cudaMemcpy (g->d_plain, tmpl, n, cudaMemcpyHostToDevice));
  if (byte_mask) {
    KCONV_CUDA_CHECK (cudaMalloc (&g->d_plain_mask, n));
    KCONV_CUDA_CHECK (
        cudaMemcpy (g->d_plain_mask, byte_mask, n, cudaMemcpyHostToDevice));
  }
  /* (the scored search, the FFT's user, takes templates without masks) */
  kmatch_cuda_fft_set_template (&g->fft, byte_mask ? NULL : g->d_plain, row, th,
      ch);
  /* copies from pageable memory may return before their DMA ends, and the
   * matcher's streams do not wait for the legacy one */
  KCONV_CUDA_CHECK (cudaStreamSynchronize (0));
  kmatch_prune_blocks (tmpl, byte_mask, tw, th, ch, &g->pb);
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
  } else {
#pragma unroll
    for (int c = 0; c < CH; c++)
      d[c] = p[lay.offsets[c]];
  }
}

/* Queues the region's compared samples into s->d_frame (pitch bytes a
 * row): host memory crosses on the upload stream (pageable memory through
 * the slot's pinned staging, copied here), device memory is read where it
 * lies; packed samples are then gathered (or their luma made) on the
 * search stream. */
static KConvStatus
upload_region (KMatchCuda *g, KMatchCudaSlot *s, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaLayout *layout, int w,
    int h, int pitch, int n_threads)
{
  const size_t row =
      (size_t) w * (layout ? (size_t) layout->pixel_stride : (size_t) g->ch);
  const uint8_t *src = frame;
  size_t src_pitch = stride;
  if (!on_device) {
    if (!kconv_cuda_is_pinned (frame)) {
      KConvStatus st = grow (&s->h_stage, &s->stage_size, row * h, 1);
      if (st != KCONV_OK)
        return st;
      kconv_copy_rows (s->h_stage, row, frame, stride, row, h, n_threads);
      kconv_cuda_count_staged (1, row * h);
      src = s->h_stage;
      src_pitch = row;
    }
    /* packed samples go straight to where the search reads them */
    size_t to_pitch = layout ? (row + 127) / 128 * 128 : (size_t) pitch;
    if (layout) {
      KConvStatus st = grow (&s->d_raw, &s->raw_size, to_pitch * h, 0);
      if (st != KCONV_OK)
        return st;
    }
    uint8_t *to = layout ? s->d_raw : s->d_frame;
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (to, to_pitch, src, src_pitch, row, h,
        cudaMemcpyHostToDevice, g->up));
    kconv_cuda_count_transfer (1, row * h);
    KCONV_CUDA_CHECK (cudaEventRecord (s->uploaded, g->up));
    KCONV_CUDA_CHECK (cudaStreamWaitEvent (g->stream, s->uploaded, 0));
    if (!layout)
      return KCONV_OK;
    src = s->d_raw;
    src_pitch = to_pitch;
  } else if (!layout) {
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (s->d_frame, pitch, frame, stride, row,
        h, cudaMemcpyDeviceToDevice, g->stream));
    return KCONV_OK;
  }
  dim3 grid ((w + 127) / 128, h);
  if (layout->luma)
    gather_kernel<1, true><<<grid, 128, 0, g->stream>>> (src, src_pitch,
        *layout, s->d_frame, pitch, w, h);
  else if (g->ch == 1)
    gather_kernel<1, false><<<grid, 128, 0, g->stream>>> (src, src_pitch,
        *layout, s->d_frame, pitch, w, h);
  else
    gather_kernel<3, false><<<grid, 128, 0, g->stream>>> (src, src_pitch,
        *layout, s->d_frame, pitch, w, h);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}

/* Whether the search is worth bounding first: where the exhaustive work
 * is large (at 1080p the bounds cost about a tenth of the search with a
 * 64 x 64 template, and more than it saves with 16 x 16), or as
 * KCONV_CUDA_MATCH_PRUNE says. */
static bool
prunes (const KMatchCuda *g, int mw, int mh)
{
  const int forced = kconv_tuning ().cuda_match_prune;
  if (g->pb.n == 0 || forced == 0)
    return false;
  const double work = (double) mw * mh * g->tw * g->th * g->ch;
  return forced == 1 || work >= 0x1p32;
}

/* The most groups of positions left by the bounds that sad_left sums, a
 * block each: a sixteenth of them (where more are left, most of
 * sad_kernel's warps have work where they lie).  KCONV_CUDA_MATCH_LEFT=1:
 * all, 0: none. */
#define LEFT_BLOCKS 1024 /* sad_left's blocks, each summing groups in turn */

static uint32_t
left_groups (int mw, int mh)
{
  const uint32_t groups = (uint32_t) kmatch_prune_groups (mw, mh);
  const int forced = kconv_tuning ().cuda_match_left;
  return forced == 0 ? 0 : forced == 1 ? groups : groups / 16;
}

/* Queues the search of a slot whose buffers are ready. */
static KConvStatus
slot_search (KMatchCuda *g, KMatchCudaSlot *s, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaLayout *layout, int mw,
    int mh, uint64_t *sad_map, int n_threads)
{
  const int rw = (mw + g->tw - 1) * g->ch, rh = mh + g->th - 1;
  /* rows padded so the word window may read past the last position, and
   * ROWS - 1 rows more for a thread's rows beyond the last */
  const int pitch = (rw + 64 + 127) / 128 * 128;
  KConvStatus st =
      grow (&s->d_frame, &s->frame_size, (size_t) pitch * (rh + ROWS - 1), 0);
  if (st != KCONV_OK)
    return st;
  if (sad_map && (size_t) mw * mh > g->map_size) {
    cudaFree (g->d_map);
    g->d_map = NULL;
    g->map_size = 0;
    KCONV_CUDA_CHECK (cudaMalloc (&g->d_map, sizeof (uint64_t) * mw * mh));
    g->map_size = (size_t) mw * mh;
  }
  st = upload_region (g, s, frame, stride, on_device, layout, mw + g->tw - 1,
      rh, pitch, n_threads);
  if (st != KCONV_OK)
    return st;
  const uint64_t *group_least = NULL;
  uint64_t *thresh = NULL;
  const uint32_t *left = NULL;
  const uint32_t left_cap = left_groups (mw, mh);
  if (!sad_map && prunes (g, mw, mh)) {
    st = grow (&s->d_prune, &s->prune_size,
        kmatch_prune_scratch_bytes (&g->pb, mw, mh), 0);
    if (st != KCONV_OK)
      return st;
    thresh = s->d_best + 2;
    st = kmatch_prune_queue (&g->pb, s->d_frame, pitch, g->ch, mw, mh, g->tw,
        g->th, g->d_plain, g->d_plain_mask, s->d_prune, &group_least,
        (unsigned long long *) (s->d_best + 1), thresh, &left, left_cap,
        g->stream);
    if (st != KCONV_OK)
      return st;
  }
  KCONV_CUDA_CHECK (
      cudaMemsetAsync (s->d_best, 0xff, sizeof (uint64_t), g->stream));
  dim3 grid ((mw + THREADS * GROUP - 1) / (THREADS * GROUP),
      (mh + ROWS - 1) / ROWS);
  const bool pixel_mask = g->d_pixel_mask != NULL;
  size_t smem =
      ((size_t) g->th * (pixel_mask ? 2 : 1) + 1) * (g->words + 1) * 16;
  uint64_t *map = sad_map ? g->d_map : NULL;
  const bool staged = smem <= (size_t) g->smem_optin;
  void (*fn) (const uint8_t *, int, int, int, const uint4 *, const uint4 *,
      const uint4 *, int, int, uint64_t *, uint64_t *, const uint64_t *,
      const uint64_t *, const int2 *, const uint32_t *, uint32_t);
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
  /* the limit is the function's, for the whole process: raised once per
   * device and context to the device's most, so that matchers on other
   * threads, with other templates, never lower it under a launch of this
   * one (a launch over the limit fails with cudaErrorInvalidValue) */
  static KConvCudaSmemAllowed allowed[2][2]; /* [ch 3][pixel mask] */
  if (staged)
    KCONV_CUDA_CHECK (
        kconv_cuda_allow_smem (fn, smem, &allowed[g->ch == 3][pixel_mask]));
  fn<<<grid, THREADS, staged ? smem : 0, g->stream>>> (s->d_frame, pitch, mw,
      mh, g->d_tmpl, g->d_mask, g->d_pixel_mask, g->words, g->th, map,
      s->d_best, group_least, thresh, g->d_mask_rows, left, left_cap);
  if (group_least) {
    void (*fl) (const uint8_t *, int, int, int, const uint4 *, const uint4 *,
        const uint4 *, int, int, uint64_t *, const uint32_t *, uint32_t) =
        g->ch == 1 ? (pixel_mask ? sad_left<1, true> : sad_left<1, false>)
                   : (pixel_mask ? sad_left<3, true> : sad_left<3, false>);
    const unsigned blocks = left_cap < LEFT_BLOCKS ? left_cap : LEFT_BLOCKS;
    if (blocks > 0)
      fl<<<blocks, LEFT_THREADS, 0, g->stream>>> (s->d_frame, pitch, mw, mh,
          g->d_tmpl, g->d_mask, g->d_pixel_mask, g->words, g->th, s->d_best,
          left, left_cap);
  }
  KCONV_CUDA_CHECK (cudaGetLastError ());
  KCONV_CUDA_CHECK (cudaMemcpyAsync (s->h_best, s->d_best, sizeof (uint64_t),
      cudaMemcpyDeviceToHost, g->stream));
  if (sad_map)
    KCONV_CUDA_CHECK (cudaMemcpyAsync (sad_map, g->d_map,
        sizeof (uint64_t) * mw * mh, cudaMemcpyDeviceToHost, g->stream));
  return kconv_cuda_fence_record (&s->fence, g->stream);
}

/* *slotp ready for a search of mw x mh positions on g's device (made on
 * first use, its earlier search waited for); the device current. */
static KConvStatus
slot_ready (KMatchCuda *g, KMatchCudaSlot **slotp, int mw, int mh)
{
  if (!g->d_tmpl)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no template set");
  if (mw > 65535 || mh > 65535)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "the GPU's search "
        "covers at most 65535x65535 positions, not %dx%d",
        mw, mh);
  KMatchCudaSlot *s = *slotp;
  if (!s) {
    s = (KMatchCudaSlot *) calloc (1, sizeof *s);
    if (!s)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    *slotp = s;
  }
  KConvStatus st = kmatch_cuda_slot_wait (s); /* (a caller's mistake) */
  if (st != KCONV_OK)
    return st;
  if (s->ready && !kconv_cuda_fence_fits (&s->fence, g->device, g->wait))
    slot_release (s); /* moving to another device, or waited otherwise */
  if (!s->ready && (st = slot_init (s, g->device, g->wait)) != KCONV_OK) {
    slot_release (s);
    return st;
  }
  return kconv_cuda_use_device (g->device);
}

extern "C" KConvStatus
kmatch_cuda_submit (KMatchCuda *g, KMatchCudaSlot **slotp, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaLayout *layout, int mw,
    int mh, uint64_t *sad_map, int n_threads)
{
  KConvStatus st = slot_ready (g, slotp, mw, mh);
  if (st != KCONV_OK)
    return st;
  KMatchCudaSlot *s = *slotp;
  st = slot_search (g, s, frame, stride, on_device, layout, mw, mh, sad_map,
      n_threads);
  if (st != KCONV_OK)
    kconv_cuda_fence_break (&s->fence);
  return st;
}

extern "C" KConvStatus
kmatch_cuda_slot_wait (KMatchCudaSlot *s)
{
  return s ? kconv_cuda_fence_wait (&s->fence, "a search") : KCONV_OK;
}

extern "C" int
kmatch_cuda_slot_done (const KMatchCudaSlot *s)
{
  return !s || kconv_cuda_fence_done (&s->fence);
}

extern "C" void
kmatch_cuda_slot_best (const KMatchCudaSlot *s, int *best_x, int *best_y,
    uint64_t *best_sad)
{
  const uint64_t key = *s->h_best;
  *best_sad = key >> 32;
  *best_y = (int) ((key >> 16) & 0xffff);
  *best_x = (int) (key & 0xffff);
}

extern "C" void
kmatch_cuda_slot_free (KMatchCudaSlot *s)
{
  if (!s)
    return;
  kmatch_cuda_slot_wait (s);
  slot_release (s);
  free (s);
}

extern "C" KConvStatus
kmatch_cuda_search (KMatchCuda *g, const uint8_t *frame, ptrdiff_t stride,
    int on_device, const KMatchCudaLayout *layout, int mw, int mh, int *best_x,
    int *best_y, uint64_t *best_sad, uint64_t *sad_map, int n_threads)
{
  KConvStatus st = kmatch_cuda_submit (g, &g->own, frame, stride, on_device,
      layout, mw, mh, sad_map, n_threads);
  KConvStatus waited = kmatch_cuda_slot_wait (g->own);
  if (st == KCONV_OK)
    st = waited;
  if (st == KCONV_OK)
    kmatch_cuda_slot_best (g->own, best_x, best_y, best_sad);
  return st;
}

/* Queues the scored search of the slot's uploaded region: the
 * correlation here, the rest in kmatch-cuda-methods.cu. */
static KConvStatus
scored_search (KMatchCuda *g, KMatchCudaSlot *s, const KMatchScoring *sc,
    const uint8_t *frame, ptrdiff_t stride, int on_device,
    const KMatchCudaLayout *layout, int mw, int mh, int max_matches,
    int n_threads)
{
  const int rw = (mw + g->tw - 1) * g->ch, rh = mh + g->th - 1;
  const int pitch = (rw + 64 + 127) / 128 * 128;
  const size_t cells = (size_t) mw * mh;
  KConvStatus st =
      grow (&s->d_frame, &s->frame_size, (size_t) pitch * (rh + ROWS - 1), 0);
  if (st == KCONV_OK)
    st =
        grow ((uint8_t **) &g->d_ft, &g->ft_size, cells * sizeof (uint64_t), 0);
  if (st == KCONV_OK)
    st = grow (&g->d_scratch, &g->scratch_size,
        kmatch_cuda_methods_scratch (mw, mh, g->tw, g->ch, max_matches), 0);
  const size_t sums = ((size_t) max_matches + 1) * sizeof (KMatchSums);
  if (st == KCONV_OK && sums > g->sums_size) {
    size_t h_size = 0;
    if (g->h_sums)
      cudaFreeHost (g->h_sums);
    g->h_sums = g->dh_sums = NULL;
    g->sums_size = 0;
    st = grow ((uint8_t **) &g->h_sums, &h_size, sums, 1);
    if (st == KCONV_OK && cudaHostGetDevicePointer ((void **) &g->dh_sums,
                              g->h_sums, 0) != cudaSuccess)
      st = kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
          "page-locked memory the GPU cannot write (no unified addressing)");
    if (st == KCONV_OK)
      g->sums_size = sums;
  }
  if (st == KCONV_OK)
    st = upload_region (g, s, frame, stride, on_device, layout, mw + g->tw - 1,
        rh, pitch, n_threads);
  if (st != KCONV_OK)
    return st;
  if (!kmatch_cuda_fft_correlate (g->fft, s->d_frame, pitch, mw, mh, g->d_ft,
          g->stream, &st)) {
    const size_t smem = (size_t) g->th * (g->words + 1) * 16;
    const bool staged = smem <= (size_t) g->smem_optin;
    void (*fn) (const uint8_t *, int, int, int, const uint4 *, int, int,
        uint64_t *);
    if (g->ch == 1)
      fn = staged ? corr_kernel<1, true> : corr_kernel<1, false>;
    else
      fn = staged ? corr_kernel<3, true> : corr_kernel<3, false>;
    static KConvCudaSmemAllowed allowed[2]; /* [ch 3] */
    if (staged)
      KCONV_CUDA_CHECK (kconv_cuda_allow_smem (fn, smem, &allowed[g->ch == 3]));
    dim3 grid ((mw + THREADS * GROUP - 1) / (THREADS * GROUP),
        (mh + ROWS - 1) / ROWS);
    fn<<<grid, THREADS, staged ? smem : 0, g->stream>>> (s->d_frame, pitch, mw,
        mh, g->d_tmpl, g->words, g->th, g->d_ft);
    KCONV_CUDA_CHECK (cudaGetLastError ());
  }
  KCONV_TRY (st);
  const KMatchCudaMethodsJob job = { s->d_frame, pitch, g->d_ft, mw, mh, g->tw,
    g->th, g->d_scratch, max_matches, g->dh_sums, &g->dh_sums[max_matches].x };
  /* (the picks are written straight to page-locked memory: a copy after
   * the kernels would add its own latency to every search) */
  KCONV_TRY (kmatch_cuda_methods_queue (sc, &job, g->stream));
  return kconv_cuda_fence_record (&s->fence, g->stream);
}

extern "C" KConvStatus
kmatch_cuda_search_scored (KMatchCuda *g, const KMatchScoring *sc,
    const uint8_t *frame, ptrdiff_t stride, int on_device,
    const KMatchCudaLayout *layout, int mw, int mh, int max_matches,
    KMatchSums *out, int *n_out, int n_threads)
{
  *n_out = 0;
  if (sc->ch != g->ch || max_matches < 1)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "kmatch_cuda_search_scored: "
        "the scoring's channels differ from the template's, or no match "
        "asked for");
  KConvStatus st = slot_ready (g, &g->own, mw, mh);
  if (st == KCONV_OK)
    st = scored_search (g, g->own, sc, frame, stride, on_device, layout, mw, mh,
        max_matches, n_threads);
  if (st != KCONV_OK) {
    if (g->own)
      kconv_cuda_fence_break (&g->own->fence);
    return st;
  }
  st = kmatch_cuda_slot_wait (g->own);
  if (st != KCONV_OK)
    return st;
  *n_out = g->h_sums[max_matches].x;
  memcpy (out, g->h_sums, (size_t) *n_out * sizeof *out);
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_upload (KMatchCuda *g, const void *src, ptrdiff_t src_stride,
    size_t row_bytes, int rows, void **dst, ptrdiff_t *dst_stride)
{
  KCONV_TRY (kconv_cuda_use_device (g->device));
  /* rows 256-byte aligned, as cudaMallocPitch would */
  const size_t pitch = (row_bytes + 255) / 256 * 256;
  KCONV_TRY (grow (&g->d_shared, &g->shared_size,
      pitch * (size_t) (rows > 0 ? rows : 1), 0));
  *dst = g->d_shared;
  *dst_stride = (ptrdiff_t) pitch;
  if (rows <= 0 || row_bytes == 0)
    return KCONV_OK;
  KCONV_CUDA_CHECK (cudaMemcpy2DAsync (g->d_shared, pitch, src, src_stride,
      row_bytes, rows, cudaMemcpyHostToDevice, g->stream));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (g->stream));
  kconv_cuda_count_transfer (1, row_bytes * rows);
  return KCONV_OK;
}

extern "C" KConvStatus
kmatch_cuda_download (KMatchCuda *g, const void *src, ptrdiff_t src_stride,
    size_t row_bytes, int rows, const void **dst)
{
  KCONV_TRY (kconv_cuda_use_device (g->device));
  /* into page-locked memory: one copy by DMA (a copy of many short rows
   * to pageable memory is staged row by row, ten times slower) */
  const size_t need = row_bytes * (size_t) (rows > 0 ? rows : 0);
  KCONV_TRY (grow (&g->h_window, &g->window_size, need > 0 ? need : 1, 1));
  *dst = g->h_window;
  if (need == 0)
    return KCONV_OK;
  KCONV_CUDA_CHECK (cudaMemcpy2DAsync (g->h_window, row_bytes, src, src_stride,
      row_bytes, rows, cudaMemcpyDeviceToHost, g->stream));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (g->stream));
  kconv_cuda_count_transfer (0, need);
  return KCONV_OK;
}

extern "C" void
kmatch_cuda_free (KMatchCuda *g)
{
  if (!g)
    return;
  (void) kconv_cuda_use_device (g->device);
  /* slots still in flight read the template */
  if (g->stream)
    cudaStreamSynchronize (g->stream);
  kmatch_cuda_slot_free (g->own);
  cudaFree (g->d_tmpl);
  cudaFree (g->d_mask);
  cudaFree (g->d_pixel_mask);
  cudaFree (g->d_mask_rows);
  cudaFree (g->d_plain);
  cudaFree (g->d_plain_mask);
  cudaFree (g->d_map);
  cudaFree (g->d_ft);
  kmatch_cuda_fft_free (g->fft);
  cudaFree (g->d_scratch);
  cudaFree (g->d_shared);
  if (g->h_window)
    cudaFreeHost (g->h_window);
  if (g->h_sums)
    cudaFreeHost (g->h_sums);
  if (g->stream)
    cudaStreamDestroy (g->stream);
  if (g->up)
    cudaStreamDestroy (g->up);
  free (g);
}
