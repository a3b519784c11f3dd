/* kconv: pieces every CUDA kernel shares
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>
#include <type_traits>
#include <cuda_runtime.h>
#include "kconv.h"
#include "kconv-plan.h"
#include "kconv-int-division.h"

/* Output tile of one block: 32 columns (one per thread of a warp) by
 * BLOCK_ROWS * ROWS_PER_THREAD rows. */
#define KCONV_CUDA_TILE_W 32
#define KCONV_CUDA_BLOCK_ROWS 8

/* Kernels up to this many weights travel as a launch parameter, which lives
 * in constant memory; larger ones are read from global memory. */
#define KCONV_CUDA_PARAM_WEIGHTS 968

struct KConvCudaWeights
{
  float w[KCONV_CUDA_PARAM_WEIGHTS];
};

/* What the kernels need to know about the image and the arithmetic. */
struct KConvCudaJob
{
  const uint8_t *src;
  uint8_t *dst;
  int width, height;
  int row_begin, row_end; /* the output rows this launch writes */
  int src_stride, dst_stride;
  int pixel_stride;
  int n_channels; /* convolved in this launch */
  int channel_offset[KCONV_MAX_CHANNELS];
  int copy_other_bytes; /* write the bytes no channel covers */
  int aligned4;         /* src, dst and strides 4-byte aligned */
  int cols, rows, ax, ay;
  int border;
  /* arithmetic, as KConvPlan */
  int exact, negate, absolute;
  int32_t divisor, ioffset;
  KConvIntDivision div; /* the exact paths' division (kconv_cuda_divide) */
  float bias;
  /* samples: bytes (depth 8) or 16-bit words (depth 9 to 16, see
   * KConvImage); outputs clamp to maxval */
  int depth, shift, big_endian;
  int32_t maxval;
  int aligned8; /* src, dst and strides 8-byte aligned (RGBA64 as one load) */
};

/* What a kernel instantiation may take of dynamic shared memory on each
 * device so far, and in which CUDA context it was raised: the attribute
 * belongs to a context, so a filter on a second GPU, or in GStreamer's own
 * context of the same GPU, must raise it there too. */
#define KCONV_CUDA_MAX_DEVICES 64
typedef struct
{
  int on[KCONV_CUDA_MAX_DEVICES];
  void *context[KCONV_CUDA_MAX_DEVICES];
} KConvCudaSmemAllowed;

extern "C" void *kconv_cuda_current_context (void);

/* Lets fn take the current device's whole opt-in shared memory, the first
 * time a launch there needs more than the default 48 KB; *allowed (one per
 * kernel instantiation) remembers it per device, so frames do not pay for
 * it.  Threads may race to raise it: both set the same value. */
template <class Kernel>
static inline cudaError_t
kconv_cuda_allow_smem (Kernel fn, size_t smem, KConvCudaSmemAllowed *allowed)
{
  int optin = 0, dev = 0;
  cudaError_t err = cudaGetDevice (&dev);
  if (err != cudaSuccess)
    return err;
  int *raised = dev < KCONV_CUDA_MAX_DEVICES ? &allowed->on[dev] : NULL;
  void **where = dev < KCONV_CUDA_MAX_DEVICES ? &allowed->context[dev] : NULL;
  void *context = kconv_cuda_current_context ();
  if (raised && __atomic_load_n (where, __ATOMIC_ACQUIRE) == context &&
      (int) smem <= __atomic_load_n (raised, __ATOMIC_ACQUIRE))
    return cudaSuccess;
  cudaFuncAttributes fa;
  err = cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
      dev);
  /* the kernel's static shared memory counts against the same limit */
  if (err == cudaSuccess)
    err = cudaFuncGetAttributes (&fa, fn);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute (fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
        optin - (int) fa.sharedSizeBytes);
  /* the value is the device's: only the context it was raised in changes */
  if (err == cudaSuccess && raised) {
    __atomic_store_n (raised, optin - (int) fa.sharedSizeBytes,
        __ATOMIC_RELEASE);
    __atomic_store_n (where, context, __ATOMIC_RELEASE);
  } else if (err != cudaSuccess)
    cudaGetLastError (); /* reported here, not by the next launch */
  return err;
}

static inline __host__ __device__ int
kconv_div_up (int a, int b)
{
  return (a + b - 1) / b;
}

/* Blocks down a launch whose blocks cover tile_h output rows each. */
static inline int
kconv_cuda_grid_rows (const KConvCudaJob &job, int tile_h)
{
  return kconv_div_up (job.row_end - job.row_begin, tile_h);
}

/* A word from global to shared memory without passing through registers
 * (cp.async, 8.0 and up; a plain copy before), so that a thread can have
 * every load of a tile in flight at once.  kconv_cuda_copy_wait waits for
 * the thread's copies; a barrier then publishes them to the block. */
__device__ __forceinline__ void
kconv_cuda_copy_word_async (uint32_t *shared_dst, const uint32_t *src)
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(
                   (uint32_t) __cvta_generic_to_shared (shared_dst)),
               "l"(src)
               : "memory");
#else
  *shared_dst = __ldg (src);
#endif
}

__device__ __forceinline__ void
kconv_cuda_copy_wait (void)
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/* byte -> float in two full-rate instructions (2^23 + b, minus 2^23)
 * where a conversion instruction would run at a quarter of the rate */
__device__ __forceinline__ float
kconv_cuda_u8_to_float (uint32_t b)
{
  return __int_as_float (0x4B000000u | b) - 8388608.f;
}

/* How a launch turns sums into samples: known on the host, so kernels that
 * care can fix it at compile time. */
enum {
  KCONV_FINISH_FLOAT,
  KCONV_FINISH_EXACT_UNIT, /* exact, divisor 1 */
  KCONV_FINISH_EXACT,
};

static inline __host__ __device__ int
kconv_cuda_finish_mode (const KConvCudaJob &job)
{
  return !job.exact         ? KCONV_FINISH_FLOAT
         : job.divisor == 1 ? KCONV_FINISH_EXACT_UNIT
                            : KCONV_FINISH_EXACT;
}

/* round_half_up (s / d) + ioffset for an exact sum s and the divisor
 * d >= 2 in four instructions (kconv-int-division.h); a sum that started
 * at job.div.add goes to kconv_cuda_divide_added, three. */
__device__ __forceinline__ int32_t
kconv_cuda_divide_added (const KConvCudaJob &job, int32_t a)
{
  return (int32_t) (__umulhi ((uint32_t) a, job.div.magic) >> job.div.shift) +
         job.div.offset;
}

__device__ __forceinline__ int32_t
kconv_cuda_divide (const KConvCudaJob &job, int32_t s)
{
  return kconv_cuda_divide_added (job, s + job.div.add);
}

/* The rule of kconv.h, as omp/kconv-omp.c's finish_row: bit-identical.
 * Conversions run at a quarter of the rate of other instructions, so the
 * exact path converts only the sum and divides it in integers. */
template <int MODE>
__device__ __forceinline__ int32_t
kconv_cuda_finish_to (const KConvCudaJob &job, float acc, int32_t maxval)
{
  if (MODE != KCONV_FINISH_FLOAT) {
    float sf = job.negate ? -acc : acc;
    sf = job.absolute ? fabsf (sf) : sf;
    const int32_t s = __float2int_rn (sf);
    const int32_t q = MODE == KCONV_FINISH_EXACT ? kconv_cuda_divide (job, s)
                                                 : s + job.ioffset;
    return q < 0 ? 0 : q > maxval ? maxval : q;
  }
  float v = (job.absolute ? fabsf (acc) : acc) + job.bias;
  v = v < 0.f ? 0.f : v;
  v = v > (float) maxval ? (float) maxval : v;
  /* truncation without a conversion: 2^23 + v rounded toward zero holds
   * floor (v) in its low bits */
  return (int32_t) (__float_as_uint (__fadd_rz (v, 8388608.f)) & 0x7fffffu);
}

template <int MODE>
__device__ __forceinline__ uint8_t
kconv_cuda_finish_as (const KConvCudaJob &job, float acc)
{
  return (uint8_t) kconv_cuda_finish_to<MODE> (job, acc, 255);
}

/* Whether every source and output row starts 16-byte aligned, so that a
 * thread may move four 4-byte pixels in one piece. */
static inline bool
kconv_cuda_rows_aligned16 (const KConvCudaJob &job)
{
  return (uintptr_t) job.src % 16 == 0 && (uintptr_t) job.dst % 16 == 0 &&
         job.src_stride % 16 == 0 && job.dst_stride % 16 == 0;
}

/* Bytes b3 b2 b1 b0 of a word, each clamped to [0, 255]: two
 * instructions (cvt.pack puts a and b, saturated, in bits 15-8 and 7-0
 * and the low half of c above them). */
__device__ __forceinline__ uint32_t
kconv_cuda_pack_bytes (int b3, int b2, int b1, int b0)
{
  uint32_t high, word;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, 0;" : "=r"(high) : "r"(b3), "r"(b2));
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;"
      : "=r"(word)
      : "r"(b1), "r"(b0), "r"(high));
  return word;
}

/* The same rule for an exact integer sum, without conversions (they run
 * at a quarter of the rate). */
template <int MODE>
__device__ __forceinline__ int32_t
kconv_cuda_finish_int_unclamped (const KConvCudaJob &job, int32_t s)
{
  s = job.negate ? -s : s;
  s = job.absolute ? abs (s) : s;
  return MODE == KCONV_FINISH_EXACT ? kconv_cuda_divide (job, s)
                                    : s + job.ioffset;
}

/* kconv_cuda_finish_int_unclamped clamped to [0, 255] (where the bytes
 * are not packed by kconv_cuda_pack_bytes, which clamps them itself) */
template <int MODE>
__device__ __forceinline__ uint32_t
kconv_cuda_finish_int (const KConvCudaJob &job, int32_t s)
{
  const int32_t q = kconv_cuda_finish_int_unclamped<MODE> (job, s);
  return (uint32_t) (q < 0 ? 0 : q > 255 ? 255 : q);
}

/* The rule, its mode looked up: 0 .. 255, or for DEEP 0 .. job.maxval */
template <bool DEEP = false>
__device__ __forceinline__ int32_t
kconv_cuda_finish (const KConvCudaJob &job, float acc)
{
  const int32_t maxval = DEEP ? job.maxval : 255;
  switch (kconv_cuda_finish_mode (job)) {
  case KCONV_FINISH_FLOAT:
    return kconv_cuda_finish_to<KCONV_FINISH_FLOAT> (job, acc, maxval);
  case KCONV_FINISH_EXACT_UNIT:
    return kconv_cuda_finish_to<KCONV_FINISH_EXACT_UNIT> (job, acc, maxval);
  default:
    return kconv_cuda_finish_to<KCONV_FINISH_EXACT> (job, acc, maxval);
  }
}

/* A 16-bit word's value (depth, shift, byte order: KConvImage) as a float */
__device__ __forceinline__ float
kconv_cuda_word_to_float (const KConvCudaJob &job, const uint8_t *p)
{
  uint32_t w = __ldg ((const unsigned short *) p);
  if (job.big_endian)
    w = __byte_perm (w, 0, 0x4401);
  return kconv_cuda_u8_to_float ((w >> job.shift) & (uint32_t) job.maxval);
}

/* Where sample (row, col) of a channel plane lives in shared memory. */
struct KConvPlainLayout
{
  int pitch;
  __device__ int operator() (int row, int col) const
  {
    return row * pitch + col;
  }
};

/* The loop of kconv_cuda_load_tile; INTERIOR: the window lies inside the
 * image, so no border rule is needed. */
template <class Layout, int WORDS, bool INTERIOR, bool DEEP>
__device__ __forceinline__ void
kconv_cuda_load_tile_as (const KConvCudaJob &job, float *tile, int nch, int x0,
    int y0, int tile_w, int tile_h, int plane, Layout at)
{
  const bool words =
      !DEEP && (WORDS < 0 ? job.pixel_stride == 4 && job.aligned4 : WORDS == 1);
  /* a warp per row segment: neighbouring threads, neighbouring pixels;
   * unrolled so that several rows' loads are in flight at once */
#pragma unroll 4
  for (int ty = threadIdx.y; ty < tile_h; ty += blockDim.y) {
    const int sy = INTERIOR
                       ? y0 + ty
                       : kconv_border_index (job.border, y0 + ty, job.height);
    const uint8_t *row = job.src + (size_t) (sy < 0 ? 0 : sy) * job.src_stride;
    for (int tx = threadIdx.x; tx < tile_w; tx += blockDim.x) {
      const int sx = INTERIOR
                         ? x0 + tx
                         : kconv_border_index (job.border, x0 + tx, job.width);
      const uint8_t *p = row + (size_t) (sx < 0 ? 0 : sx) * job.pixel_stride;
      const bool inside = INTERIOR || (sy >= 0 && sx >= 0);
      const int o = at (ty, tx);
      if (DEEP && job.pixel_stride == 8 && job.aligned8) {
        /* a 64-bit pixel (RGBA64) in one load */
        const uint2 px = inside ? __ldg ((const uint2 *) p) : make_uint2 (0, 0);
        for (int c = 0; c < nch; c++) {
          const int off = job.channel_offset[c];
          uint32_t w = ((off < 4 ? px.x : px.y) >> (8 * (off & 2))) & 0xffffu;
          if (job.big_endian)
            w = __byte_perm (w, 0, 0x4401);
          tile[c * plane + o] =
              kconv_cuda_u8_to_float ((w >> job.shift) & (uint32_t) job.maxval);
        }
      } else if (DEEP) {
        for (int c = 0; c < nch; c++)
          tile[c * plane + o] =
              inside ? kconv_cuda_word_to_float (job, p + job.channel_offset[c])
                     : 0.f;
      } else if (words) {
        const uint32_t word = inside ? __ldg ((const uint32_t *) p) : 0u;
        for (int c = 0; c < nch; c++)
          tile[c * plane + o] = kconv_cuda_u8_to_float (
              (word >> (8 * job.channel_offset[c])) & 0xffu);
      } else {
        for (int c = 0; c < nch; c++)
          tile[c * plane + o] = kconv_cuda_u8_to_float (
              inside ? __ldg (p + job.channel_offset[c]) : 0u);
      }
    }
  }
}

/* Fills float planes [channel][...] with a tile_w x tile_h window of source
 * samples whose top-left is (x0, y0), border rule applied (most tiles lie
 * inside the image and skip it). */
/* WORDS: 1 when pixels are 4 aligned bytes, 0 when not, -1 to look.
 * DEEP: samples are 16-bit words. */
template <class Layout, int WORDS = -1, bool DEEP = false>
__device__ __forceinline__ void
kconv_cuda_load_tile (const KConvCudaJob &job, float *tile, int nch, int x0,
    int y0, int tile_w, int tile_h, int plane, Layout at)
{
  if (x0 >= 0 && y0 >= 0 && x0 + tile_w <= job.width &&
      y0 + tile_h <= job.height)
    kconv_cuda_load_tile_as<Layout, WORDS, true, DEEP> (job, tile, nch, x0, y0,
        tile_w, tile_h, plane, at);
  else
    kconv_cuda_load_tile_as<Layout, WORDS, false, DEEP> (job, tile, nch, x0, y0,
        tile_w, tile_h, plane, at);
}

/* A 4-byte pixel's source word with its convolved channels put in place */
template <int NCH>
__device__ __forceinline__ uint32_t
kconv_cuda_merge_word (const KConvCudaJob &job, uint32_t word,
    const uint8_t *out)
{
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    const int shift = 8 * job.channel_offset[c];
    word = (word & ~(0xffu << shift)) | (uint32_t) out[c] << shift;
  }
  return word;
}

/* Writes one output pixel's convolved channels, and the bytes no channel
 * covers (alpha, padding) when this launch owns them. */
template <int NCH, int WORDS = -1>
__device__ __forceinline__ void
kconv_cuda_store_pixel (const KConvCudaJob &job, int x, int y,
    const uint8_t *out)
{
  uint8_t *d =
      job.dst + (size_t) y * job.dst_stride + (size_t) x * job.pixel_stride;
  const bool words =
      WORDS < 0 ? job.pixel_stride == 4 && job.aligned4 : WORDS == 1;
  if (words && job.copy_other_bytes) {
    const uint32_t word =
        *(const uint32_t *) (job.src + (size_t) y * job.src_stride +
                             (size_t) x * 4);
    *(uint32_t *) d = kconv_cuda_merge_word<NCH> (job, word, out);
    return;
  }
#pragma unroll
  for (int c = 0; c < NCH; c++)
    d[job.channel_offset[c]] = out[c];
  if (job.copy_other_bytes && NCH < job.pixel_stride) {
    const uint8_t *s =
        job.src + (size_t) y * job.src_stride + (size_t) x * job.pixel_stride;
    for (int b = 0; b < job.pixel_stride; b++) {
      bool convolved = false;
#pragma unroll
      for (int c = 0; c < NCH; c++)
        convolved |= job.channel_offset[c] == b;
      if (!convolved)
        d[b] = s[b];
    }
  }
}

/* kconv_cuda_store_pixel for 16-bit words: each value shifted into place
 * (the bits below it 0), in the image's byte order */
template <int NCH>
__device__ __forceinline__ void
kconv_cuda_store_pixel_deep (const KConvCudaJob &job, int x, int y,
    const int32_t *out)
{
  uint8_t *d =
      job.dst + (size_t) y * job.dst_stride + (size_t) x * job.pixel_stride;
  if (job.pixel_stride == 8 && job.aligned8 && !job.big_endian) {
    /* a 64-bit pixel (RGBA64) in one store, the words no channel covers
     * from the source, or as the destination holds them */
    uint2 px = job.copy_other_bytes
                   ? *(const uint2 *) (job.src + (size_t) y * job.src_stride +
                                       (size_t) x * 8)
                   : *(const uint2 *) d;
#pragma unroll
    for (int c = 0; c < NCH; c++) {
      const int off = job.channel_offset[c];
      const uint32_t w = (uint32_t) out[c] << job.shift;
      const int bits = 8 * (off & 2);
      uint32_t &half = off < 4 ? px.x : px.y;
      half = (half & ~(0xffffu << bits)) | w << bits;
    }
    *(uint2 *) d = px;
    return;
  }
  if (job.copy_other_bytes && 2 * NCH < job.pixel_stride) {
    const uint8_t *s =
        job.src + (size_t) y * job.src_stride + (size_t) x * job.pixel_stride;
    for (int b = 0; b < job.pixel_stride; b += 2) {
      bool convolved = false;
#pragma unroll
      for (int c = 0; c < NCH; c++)
        convolved |= job.channel_offset[c] == b;
      if (!convolved)
        *(unsigned short *) (d + b) = *(const unsigned short *) (s + b);
    }
  }
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    uint32_t w = (uint32_t) out[c] << job.shift;
    if (job.big_endian)
      w = __byte_perm (w, 0, 0x4401);
    *(unsigned short *) (d + job.channel_offset[c]) = (unsigned short) w;
  }
}

/* A thread's column of ROWS output pixels at (x, y0 ...), all channels:
 * rounded by the rule (MODE, or looked up when -1) and stored; DEEP: as
 * 16-bit words. */
template <int NCH, int ROWS, int MODE = -1, int WORDS = -1, bool DEEP = false>
__device__ __forceinline__ void
kconv_cuda_store_column (const KConvCudaJob &job, int x, int y0,
    const float (&acc)[NCH][ROWS])
{
  if (x >= job.width)
    return;
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    const int y = y0 + r;
    if (y >= job.row_end)
      return;
    if (DEEP) {
      int32_t deep[NCH];
#pragma unroll
      for (int c = 0; c < NCH; c++)
        deep[c] = MODE < 0 ? kconv_cuda_finish<true> (job, acc[c][r])
                           : kconv_cuda_finish_to<(MODE < 0 ? 0 : MODE)> (job,
                                 acc[c][r], job.maxval);
      kconv_cuda_store_pixel_deep<NCH> (job, x, y, deep);
    } else {
      uint8_t out[NCH];
#pragma unroll
      for (int c = 0; c < NCH; c++)
        out[c] = MODE < 0 ? (uint8_t) kconv_cuda_finish (job, acc[c][r])
                          : kconv_cuda_finish_as<(MODE < 0 ? 0 : MODE)> (job,
                                acc[c][r]);
      kconv_cuda_store_pixel<NCH, WORDS> (job, x, y, out);
    }
  }
}

/* launch (std::integral_constant <int, N>) for a job of N = 1 to 4
 * channels, for kernels that fix the channel count at compile time. */
template <class Launch>
static cudaError_t
kconv_cuda_by_channels (int n_channels, Launch launch)
{
  switch (n_channels) {
  case 1:
    return launch (std::integral_constant<int, 1>{});
  case 2:
    return launch (std::integral_constant<int, 2>{});
  case 3:
    return launch (std::integral_constant<int, 3>{});
  case 4:
    return launch (std::integral_constant<int, 4>{});
  default:
    return cudaErrorInvalidValue;
  }
}

/* The tensor paths' tile loads for an interior tile whose quads of 4-byte
 * pixels are 16-byte aligned: a thread keeps one column q of QUADS quads
 * from (sx0, sy0) and steps down the rows (addresses by adding), one
 * 16-byte load a quad, zeros past used_rows x used_cols; quad (ty, q, v)
 * puts each where its path wants it.  (The half-precision separable path
 * keeps its own loop: through this walker it measured 1% slower.) */
template <int QUADS, int THREADS, class Quad>
__device__ __forceinline__ void
kconv_cuda_walk_quads (const KConvCudaJob &job, int sx0, int sy0, int rows,
    int used_rows, int used_cols, Quad quad)
{
  constexpr int STEP = THREADS / QUADS; /* rows a pass */
  if (threadIdx.x >= STEP * QUADS)
    return;
  const int q = threadIdx.x % QUADS, ty0 = threadIdx.x / QUADS;
  const bool used = 4 * q < used_cols;
  const uint8_t *from =
      job.src + (size_t) (sy0 + ty0) * job.src_stride + 4 * (sx0 + 4 * q);
  const size_t from_step = (size_t) STEP * job.src_stride;
#pragma unroll 4
  for (int ty = ty0; ty < rows; ty += STEP) {
    uint4 v = make_uint4 (0, 0, 0, 0);
    if (used && ty < used_rows)
      v = __ldg ((const uint4 *) from);
    quad (ty, q, v);
    from += from_step;
  }
}

/* A block's outputs, staged in shared memory as TILE_H rows of TILE_W
 * 4-byte pixels (PITCH words a row), out to the frame from (x0, y0) in
 * 16-byte pieces.  The bytes no channel covers (keep) come from the
 * source, or, where kept is given, from byte kept_byte of each pixel: the
 * block's kept word for quad i, pixel p's byte in byte p. */
template <int TILE_W, int TILE_H, int PITCH, int THREADS>
__device__ __forceinline__ void
kconv_cuda_write_staged (const KConvCudaJob &job, const uint32_t *stage, int x0,
    int y0, uint32_t keep, const uint32_t *kept, int kept_byte)
{
  constexpr int QUADS = TILE_W / 4;
#pragma unroll
  for (int at = threadIdx.x; at < TILE_H * QUADS; at += THREADS) {
    const int row = at / QUADS, x = x0 + 4 * (at % QUADS), y = y0 + row;
    if (y >= job.row_end || x >= job.width)
      continue;
    const uint4 v = *(const uint4 *) (stage + row * PITCH + 4 * (at % QUADS));
    const uint32_t *src =
        (const uint32_t *) (job.src + (size_t) y * job.src_stride) + x;
    uint32_t *dst = (uint32_t *) (job.dst + (size_t) y * job.dst_stride) + x;
    if (x + 3 < job.width && kept) {
      /* pixel p's kept byte from byte p of the kept word */
      const uint32_t k = kept[at], sel = 0x3210 & ~(0xf << (4 * kept_byte));
      *(uint4 *) dst =
          make_uint4 (__byte_perm (v.x, k, sel | 4 << (4 * kept_byte)),
              __byte_perm (v.y, k, sel | 5 << (4 * kept_byte)),
              __byte_perm (v.z, k, sel | 6 << (4 * kept_byte)),
              __byte_perm (v.w, k, sel | 7 << (4 * kept_byte)));
    } else if (x + 3 < job.width) {
      uint4 s4 = make_uint4 (0, 0, 0, 0);
      if (keep)
        s4 = __ldg ((const uint4 *) src);
      *(uint4 *) dst = make_uint4 (v.x | (s4.x & keep), v.y | (s4.y & keep),
          v.z | (s4.z & keep), v.w | (s4.w & keep));
    } else {
      const uint32_t w[4] = { v.x, v.y, v.z, v.w };
      for (int p = 0; x + p < job.width; p++)
        dst[p] = w[p] | (keep ? src[p] & keep : 0);
    }
  }
}

/* Four 8x8 matrices of 16-bit elements from shared memory (lanes 8 i to
 * 8 i + 7 give the rows of matrix i), for the tensor-core paths. */
__device__ __forceinline__ void
kconv_cuda_ldmatrix_x4 (uint32_t (&r)[4], uint32_t shared_addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_addr));
}

/* Byte b of four pixel words, pixel i in byte i. */
__device__ __forceinline__ uint32_t
kconv_cuda_gather_byte (const uint32_t (&px)[4], uint32_t b)
{
  const uint32_t sel = b | (b + 4) << 4;
  return __byte_perm (__byte_perm (px[0], px[1], sel),
      __byte_perm (px[2], px[3], sel), 0x5410);
}

/* The NCH convolved channels of source pixels sx .. sx + 3 of row sy
 * (row: its first byte), the border rule applied unless INTERIOR; bytes[c]
 * holds channel c, pixel i in byte i.  WORDS: 4-byte aligned pixels. */
template <int NCH, bool WORDS, bool INTERIOR>
__device__ __forceinline__ void
kconv_cuda_load_quad (const KConvCudaJob &job, const uint8_t *row, int sy,
    int sx, uint32_t (&bytes)[NCH])
{
  uint32_t px[4];
#pragma unroll
  for (int c = 0; c < NCH; c++)
    bytes[c] = 0;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const int x =
        INTERIOR ? sx + i : kconv_border_index (job.border, sx + i, job.width);
    const bool inside = INTERIOR || (sy >= 0 && x >= 0);
    const uint8_t *p = row + (size_t) (x < 0 ? 0 : x) * job.pixel_stride;
    if (WORDS)
      px[i] = inside ? __ldg ((const uint32_t *) p) : 0u;
    else
#pragma unroll
      for (int c = 0; c < NCH; c++)
        bytes[c] |= (uint32_t) (inside ? __ldg (p + job.channel_offset[c]) : 0)
                    << (8 * i);
  }
  if (WORDS)
#pragma unroll
    for (int c = 0; c < NCH; c++)
      bytes[c] = kconv_cuda_gather_byte (px, job.channel_offset[c]);
}
