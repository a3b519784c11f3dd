/* kconv: exact integer kernels of any size on tensor cores
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For exact kernels whose weights all fit a signed byte, on devices with
 * integer tensor cores (compute capability 8.0 and up).  One kernel row dy
 * applied to 16 image rows is a matrix product:
 *
 *   out[m][n] += sum_kk  in[dy + m][x + kk] * w[dy][x + kk - n]
 *                        A (16 x 32, bytes)   B (32 x 8, Toeplitz)
 *
 * so one mma.m16n8k32 (unsigned pixels times signed weights, 32-bit sums)
 * adds up to 32 taps of a kernel row into 16 x 8 outputs, exactly.  A warp
 * makes 16 rows x 32 columns (four n-tiles) of every channel; A comes from
 * a byte plane per channel in shared memory through ldmatrix, B from a table
 * built once per kernel: for each kernel row and lane, the words that lane
 * holds of every Toeplitz fragment the warp uses, so a kernel row costs a
 * few 16-byte loads and the fragments are register picks.  Taps a fragment
 * spends outside the kernel are multiplied by zero: 47% of the tensor work
 * is useful at 15x15, 48% at 31x31, 64% at 61x61, 76% at 121x121.  Kernels
 * up to 17 columns wide take a kernel of their own (mma_narrow_kernel).
 */
#include <string.h>
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define MMA_WARPS_X 2 /* warps across a block */
#define MMA_WARPS_Y 4 /* warps down a block */
#define MMA_THREADS (32 * MMA_WARPS_X * MMA_WARPS_Y)
#define MMA_TILE_W (32 * MMA_WARPS_X) /* output columns a block: 64 */
#define MMA_TILE_H (16 * MMA_WARPS_Y) /* output rows a block: 64 */
#define MMA_NTILES 4                  /* 8-column n-tiles a warp */

/* Bytes a plane row holds: the columns the warps read (32 a warp, plus
 * chunks - 1 more for the last), and 16 so that the 8 rows of an ldmatrix
 * fall in different banks. */
static constexpr __host__ __device__ int
mma_pitch (int chunks)
{
  return 32 * (MMA_WARPS_X - 1 + chunks) + 16;
}

/* 32-column chunks of the input a warp's strip reads for a kernel cols
 * wide: its 32 outputs span 32 + cols - 1 columns.  Narrow kernels (see
 * mma_kernel) take two: their fragments start 16 columns apart. */
int
kconv_cuda_mma_chunks (int cols)
{
  const int chunks = (32 + cols - 1 + 31) / 32;
  return chunks < 2 ? 2 : chunks;
}

/* Columns a narrow kernel's tile starts left of the first one its outputs
 * read, so that its quads are 16-byte aligned (tiles start at multiples of
 * 64 pixels): folded into the table's offsets. */
static __host__ __device__ int
narrow_shift (int ax)
{
  return -ax & 3;
}

/* Kernels whose 16 outputs from column 16 s of a warp's strip read at most
 * 32 columns from 16 s, the shift included (see mma_kernel). */
static __host__ __device__ bool
is_narrow (int cols, int ax)
{
  return cols + narrow_shift (ax) <= 17;
}

/* Table words a lane loads per kernel row: the fragments' words for
 * offsets d = 32 j - 8 t from -24 up, step 8, and 16 further (the second
 * word of each fragment), rounded up to whole 16-byte loads; a narrow
 * kernel's four, offsets -8 to 16. */
static int
table_words (int cols, int ax)
{
  return is_narrow (cols, ax) ? 4 : 4 * kconv_cuda_mma_chunks (cols) + 4;
}

size_t
kconv_cuda_mma_table_bytes (int rows, int cols, int ax)
{
  return (size_t) (rows + 1) * 32 * table_words (cols, ax) * sizeof (uint32_t);
}

/* Weight table: for kernel row dy, lane l (g = l / 4, tig = l % 4) and
 * q = 0 .., the word whose byte i is w[dy][d + 4 tig + i - g] for
 * d = 8 q - 24 (0 outside the kernel).  Fragment (t, j) of row dy is then
 * words q = 4 j - t + 3 and q + 2.  A narrow kernel's words are q = 2 to 5,
 * their offsets less its shift.  A last row of zeros lets the kernel load
 * one row ahead without a test. */
void
kconv_cuda_mma_table (const int8_t *w, int rows, int cols, int ax,
    uint32_t *table)
{
  const int words = table_words (cols, ax);
  const int narrow = is_narrow (cols, ax);
  const int first = narrow ? -8 - narrow_shift (ax) : -24;
  memset (table, 0, kconv_cuda_mma_table_bytes (rows, cols, ax));
  for (int dy = 0; dy < rows; dy++)
    for (int lane = 0; lane < 32; lane++)
      for (int q = 0; q < words; q++) {
        uint32_t word = 0;
        for (int i = 0; i < 4; i++) {
          const int dx = first + 8 * q + 4 * (lane % 4) + i - lane / 4;
          if (dx >= 0 && dx < cols)
            word |= (uint32_t) (uint8_t) w[dy * cols + dx] << (8 * i);
        }
        table[((size_t) dy * 32 + lane) * words + q] = word;
      }
}

/* c += a (16 x 32 unsigned bytes) * b (32 x 8 signed bytes) */
__device__ __forceinline__ void
mma_u8s8 (int (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/* Byte planes, one per channel, of the tile_h x tile_w window whose
 * top-left source sample is (sx0, sy0); a thread fills four columns of a
 * row (QUADS fours a row) with one 4-byte store per plane, several rows'
 * loads in flight at once. */
template <int NCH, int QUADS, bool WORDS, bool INTERIOR>
__device__ __forceinline__ void
load_planes (const KConvCudaJob &job, uint8_t *planes, int plane_bytes,
    int pitch, int sx0, int sy0, int tile_w, int tile_h)
{
#pragma unroll 4
  for (int at = threadIdx.x; at < tile_h * QUADS; at += MMA_THREADS) {
    const int ty = at / QUADS, q = at - ty * QUADS;
    const int sy = INTERIOR
                       ? sy0 + ty
                       : kconv_border_index (job.border, sy0 + ty, job.height);
    const uint8_t *row = job.src + (size_t) (sy < 0 ? 0 : sy) * job.src_stride;
    {
      uint32_t packed[NCH];
#pragma unroll
      for (int c = 0; c < NCH; c++)
        packed[c] = 0;
      if (4 * q < tile_w)
        kconv_cuda_load_quad<NCH, WORDS, INTERIOR> (job, row, sy, sx0 + 4 * q,
            packed);
#pragma unroll
      for (int c = 0; c < NCH; c++)
        *(uint32_t *) (planes + c * plane_bytes + ty * pitch + 4 * q) =
            packed[c];
    }
  }
}

/* load_planes for an interior tile whose quads are 16-byte aligned
 * (kconv_cuda_walk_quads): a channel of a quad in three permutes. */
template <int NCH, int QUADS>
__device__ __forceinline__ void
load_planes_aligned (const KConvCudaJob &job, uint8_t *planes, int plane_bytes,
    int pitch, int sx0, int sy0, int tile_w, int tile_h)
{
  uint32_t sel[NCH];
#pragma unroll
  for (int c = 0; c < NCH; c++)
    sel[c] = job.channel_offset[c] | (4 + job.channel_offset[c]) << 4;
  kconv_cuda_walk_quads<QUADS, MMA_THREADS> (job, sx0, sy0, tile_h, tile_h,
      tile_w, [&] (int ty, int q, uint4 v) {
#pragma unroll
        for (int c = 0; c < NCH; c++)
          *(uint32_t *) (planes + c * plane_bytes + ty * pitch + 4 * q) =
              __byte_perm (__byte_perm (v.x, v.y, sel[c]),
                  __byte_perm (v.z, v.w, sel[c]), 0x5410);
      });
}

/* load_planes, the border rule applied only where the tile reaches past
 * the frame */
template <int NCH, int QUADS, bool WORDS>
__device__ __forceinline__ void
load_planes_any (const KConvCudaJob &job, uint8_t *planes, int plane_bytes,
    int pitch, int sx0, int sy0, int tile_w, int tile_h, bool interior)
{
  if (interior)
    load_planes<NCH, QUADS, WORDS, true> (job, planes, plane_bytes, pitch, sx0,
        sy0, tile_w, tile_h);
  else
    load_planes<NCH, QUADS, WORDS, false> (job, planes, plane_bytes, pitch, sx0,
        sy0, tile_w, tile_h);
}

/* Where a lane's ldmatrix rows start in the planes for warp (wx, wy):
 * lanes 0-15 give rows 0-15 of the fragment's first 16 columns, lanes
 * 16-31 the same rows' next 16. */
__device__ __forceinline__ uint32_t
fragment_base (const uint8_t *planes, int pitch, int wx, int wy)
{
  const int lane = threadIdx.x % 32;
  return (uint32_t) __cvta_generic_to_shared (planes) +
         (16 * wy + lane % 16) * pitch + 32 * wx + lane / 16 * 16;
}

/* A warp's outputs a pixel at a time: accumulator e of n-tile t is row
 * g + 8 (e / 2), column 2 tig + e % 2 of n-tile t; bytes (t, e, out) puts
 * its channels in out. */
template <int NCH, bool WORDS, class Bytes>
__device__ __forceinline__ void
store_pixels (const KConvCudaJob &job, int x0, int y0, int wx, int wy,
    Bytes bytes)
{
  const int lane = threadIdx.x % 32, g = lane / 4, tig = lane % 4;
  /* 4-byte pixels whose other bytes come from the source: an n-tile's
   * source words loaded before its stores (a load after a store to the
   * frame waits for it, so pixel by pixel they took a round trip each) */
  const bool kept_words = WORDS && job.copy_other_bytes;
#pragma unroll
  for (int t = 0; t < MMA_NTILES; t++) {
    uint32_t kept[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int y = y0 + 16 * wy + g + 8 * (e / 2);
      const int x = x0 + 32 * wx + 8 * t + 2 * tig + e % 2;
      kept[e] = kept_words && y < job.row_end && x < job.width
                    ? __ldg ((const uint32_t *) (job.src +
                                                 (size_t) y * job.src_stride) +
                             x)
                    : 0;
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int y = y0 + 16 * wy + g + 8 * (e / 2);
      const int x = x0 + 32 * wx + 8 * t + 2 * tig + e % 2;
      if (y >= job.row_end || x >= job.width)
        continue;
      uint8_t out[NCH];
      bytes (t, e, out);
      if (kept_words) {
        *(uint32_t *) (job.dst + (size_t) y * job.dst_stride + (size_t) x * 4) =
            kconv_cuda_merge_word<NCH> (job, kept[e], out);
      } else {
        kconv_cuda_store_pixel<NCH, WORDS ? 1 : 0> (job, x, y, out);
      }
    }
  }
}

/* Words a row of the output stage holds: 8 more than the tile, so that a
 * half warp's 8-byte stores (4 rows, 4 column pairs) fall in different
 * banks and rows stay 16-byte aligned. */
#define MMA_STAGE_PITCH (MMA_TILE_W + 8)
#define MMA_STAGE_BYTES (4 * MMA_TILE_H * MMA_STAGE_PITCH)

/* Whether the block's outputs go out through the stage in 16-byte pieces:
 * 4-byte pixels, rows 16-byte aligned, every byte of an output pixel this
 * launch's to write (the bytes no channel covers copied from the source). */
static bool
mma_staged (const KConvCudaJob &job)
{
  return job.pixel_stride == 4 && job.aligned4 &&
         kconv_cuda_rows_aligned16 (job) &&
         (job.copy_other_bytes || job.n_channels == 4);
}

/* Byte b of the channels' packed words (channel c in byte c), placed where
 * the pixel has them by place (built in store_staged). */
template <int NCH>
__device__ __forceinline__ uint32_t
gather_pixel (const uint32_t *packed, int b, uint32_t place)
{
  const uint32_t sel = b | (b + 4) << 4;
  uint32_t v = __byte_perm (packed[0], packed[NCH > 1 ? 1 : 0], sel);
  if (NCH > 2)
    v = __byte_perm (v, __byte_perm (packed[2], packed[NCH > 3 ? 3 : 2], sel),
        0x5410);
  return __byte_perm (v, 0, place);
}

/* The block's outputs, packed a channel at a time (packed[c][2 h + t / 2],
 * byte 2 (t % 2) + e % 2: row g + 8 h, column 8 t + 2 tig + e % 2), through
 * shared memory (over the planes, once every warp is done with them) and
 * out in 16-byte pieces with the bytes no channel covers from the source. */
template <int NCH>
__device__ __forceinline__ void
store_staged (const KConvCudaJob &job, uint8_t *planes,
    const uint32_t (&packed)[NCH][4], int x0, int y0, int wx, int wy, int g,
    int tig)
{
  uint32_t *stage = (uint32_t *) planes;
  /* channel c from byte c to its place in the pixel, zeros (byte 4) in the
   * bytes no channel covers */
  uint32_t place = 0x4444, keep = 0xffffffffu;
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    place ^= (uint32_t) (4 ^ c) << (4 * job.channel_offset[c]);
    keep &= ~(0xffu << (8 * job.channel_offset[c]));
  }
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < 4; k++) {
    uint32_t w[NCH];
#pragma unroll
    for (int c = 0; c < NCH; c++)
      w[c] = packed[c][k];
    const int row = 16 * wy + g + 8 * (k / 2);
    const int col = 32 * wx + 16 * (k % 2) + 2 * tig;
#pragma unroll
    for (int t = 0; t < 2; t++)
      *(uint2 *) (stage + row * MMA_STAGE_PITCH + col + 8 * t) =
          make_uint2 (gather_pixel<NCH> (w, 2 * t, place),
              gather_pixel<NCH> (w, 2 * t + 1, place));
  }
  __syncthreads ();
  kconv_cuda_write_staged<MMA_TILE_W, MMA_TILE_H, MMA_STAGE_PITCH,
      MMA_THREADS> (job, stage, x0, y0, keep, NULL, 0);
}

/* A channel's sums of a warp finished and packed: accumulator e of n-tile t
 * is row g + 8 (e / 2), column 2 tig + e % 2; packed word 2 h + t / 2
 * holds row half h of n-tiles t, t + 1.  SIGN 1 or -1: sums started at
 * SIGN times the division's addend (or the offset, with no division),
 * which negated (SIGN -1, a negative divisor) are what the division takes:
 * three or four instructions a sum, not ten.  SIGN 0 (magnitudes): the
 * general finish. */
template <int MODE, int SIGN>
__device__ __forceinline__ void
pack_sums (const KConvCudaJob &job, const int (&acc)[MMA_NTILES][4],
    uint32_t (&packed)[4])
{
  const auto finish = [&] (int32_t s) {
    if (SIGN == 0)
      return kconv_cuda_finish_int_unclamped<MODE> (job, s);
    s = SIGN * s;
    return MODE == KCONV_FINISH_EXACT ? kconv_cuda_divide_added (job, s) : s;
  };
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int h = k / 2, t = 2 * (k % 2);
    packed[k] = kconv_cuda_pack_bytes (finish (acc[t + 1][2 * h + 1]),
        finish (acc[t + 1][2 * h]), finish (acc[t][2 * h + 1]),
        finish (acc[t][2 * h]));
  }
}

/* The narrow kernel's sums of G channels from the plane at a_row (the
 * first channel's; the others follow plane_bytes apart), finished and
 * packed into packed[0 .. G - 1].  Each kernel row's table words are
 * loaded once for the G channels: the kernel waits on the L1, and the
 * table's loads are a share of its traffic. */
template <int G, int MODE>
__device__ __forceinline__ void
narrow_sums (const KConvCudaJob &job, const uint4 *__restrict__ table,
    uint32_t a_row, int plane_bytes, int pitch, int32_t start, int sign,
    uint32_t (*packed)[4])
{
  int acc[G][MMA_NTILES][4];
#pragma unroll
  for (int c = 0; c < G; c++)
#pragma unroll
    for (int t = 0; t < MMA_NTILES; t++)
#pragma unroll
      for (int e = 0; e < 4; e++)
        acc[c][t][e] = start;

  const uint4 *tp = table + threadIdx.x % 32;
  uint4 next = __ldg (tp);
  /* one channel three rows at a time (unrolled whole, its registers
   * spill at four blocks a multiprocessor); two not unrolled: their 32
   * sums leave no registers for a second row's fragments */
  constexpr int ROWS_UNROLLED = G == 1 ? 3 : 1;
#pragma unroll ROWS_UNROLLED
  for (int dy = 0; dy < job.rows; dy++) {
    const uint32_t L[4] = { next.x, next.y, next.z, next.w };
    /* the next kernel row's words travel while this one computes (the
     * table ends with a row of zeros) */
    tp += 32;
    next = __ldg (tp);

#pragma unroll
    for (int s = 0; s < 2; s++)
#pragma unroll
      for (int c = 0; c < G; c++) {
        uint32_t a[4];
        kconv_cuda_ldmatrix_x4 (a,
            a_row + c * plane_bytes + dy * pitch + 16 * s);
        mma_u8s8 (acc[c][2 * s], a, L[1], L[3]);
        mma_u8s8 (acc[c][2 * s + 1], a, L[0], L[2]);
      }
  }

#pragma unroll
  for (int c = 0; c < G; c++) {
    if (sign > 0)
      pack_sums<MODE, 1> (job, acc[c], packed[c]);
    else if (sign < 0)
      pack_sums<MODE, -1> (job, acc[c], packed[c]);
    else
      pack_sums<MODE, 0> (job, acc[c], packed[c]);
  }
}

/* Kernels up to 17 columns wide, their shift included (is_narrow), two
 * channels at a time (32 sums live: four blocks a multiprocessor).  The 16
 * outputs from column 16 s of a warp's strip read at most 16 + 17 - 1 = 32
 * columns from 16 s, so one A fragment there serves both their n-tiles, with
 * the fragments of offsets 0 and -8 (table words 1, 3 and 0, 2 of the four):
 * four products a kernel row instead of six. Their tiles start shift columns
 * further left, so that staged frames (16-byte aligned rows of 4-byte pixels)
 * load a quad in one piece. */
template <int NCH, int MODE, bool WORDS, bool STAGED>
__global__ void
__launch_bounds__ (MMA_THREADS, 4)
    mma_narrow_kernel (const KConvCudaJob job, const uint4 *__restrict__ table)
{
  extern __shared__ __align__ (16) uint8_t planes[];
  const int kh = job.rows, kw = job.cols;
  const int shift = narrow_shift (job.ax);
  /* the plane of two chunks; the table a row in one 16-byte load */
  constexpr int pitch = mma_pitch (2);
  const int tile_h = MMA_TILE_H + kh - 1;
  const int tile_w = MMA_TILE_W + kw - 1 + shift; /* columns with weight */
  const int plane_bytes = tile_h * pitch;
  const int x0 = blockIdx.x * MMA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * MMA_TILE_H;
  const int sx0 = x0 - job.ax - shift, sy0 = y0 - job.ay;

  /* the columns the warps' fragments read (zeros past tile_w; the pitch's
   * last 16 bytes only spread the banks) */
  constexpr int QUADS_A_ROW = (32 * MMA_WARPS_X + 16) / 4;
  const bool interior = sx0 >= 0 && sy0 >= 0 && sx0 + tile_w <= job.width &&
                        sy0 + tile_h <= job.height;
  /* whole quads: the last may reach 3 pixels past the columns with weight */
  if (STAGED && interior && sx0 + ((tile_w + 3) & ~3) <= job.width)
    load_planes_aligned<NCH, QUADS_A_ROW> (job, planes, plane_bytes, pitch, sx0,
        sy0, tile_w, tile_h);
  else
    load_planes_any<NCH, QUADS_A_ROW, WORDS> (job, planes, plane_bytes, pitch,
        sx0, sy0, tile_w, tile_h, interior);
  __syncthreads ();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wy = warp / MMA_WARPS_X, wx = warp % MMA_WARPS_X;
  const int g = lane / 4, tig = lane % 4;
  const uint32_t a_base = fragment_base (planes, pitch, wx, wy);

  /* sums start where pack_sums<SIGN> takes them: for a negated kernel
   * (a negative divisor) at the negated addend, so that the negated sum
   * holds the addend; magnitudes at 0 */
  const int sign = job.absolute ? 0 : job.negate ? -1 : 1;
  const int32_t start =
      sign * (MODE == KCONV_FINISH_EXACT ? job.div.add : job.ioffset);

  /* Two channels at a time, their sums finished into bytes before the
   * next two (a channel at a time, the table loaded once a channel,
   * 15x15 took 0.0728 ms on an H200 against 0.0683-0.0685) */
  uint32_t packed[NCH][4];
#pragma unroll
  for (int c = 0; c < NCH; c += 2) {
    const uint32_t a_row = a_base + c * plane_bytes;
    if (c + 1 < NCH)
      narrow_sums<2, MODE> (job, table, a_row, plane_bytes, pitch, start, sign,
          &packed[c]);
    else
      narrow_sums<1, MODE> (job, table, a_row, plane_bytes, pitch, start, sign,
          &packed[c]);
  }

  if constexpr (STAGED) {
    store_staged<NCH> (job, planes, packed, x0, y0, wx, wy, g, tig);
  } else {
    store_pixels<NCH, WORDS> (job, x0, y0, wx, wy,
        [&] (int t, int e, uint8_t *out) {
          const int k = 2 * (e / 2) + t / 2, b = 2 * (t % 2) + e % 2;
#pragma unroll
          for (int c = 0; c < NCH; c++)
            out[c] = (uint8_t) (packed[c][k] >> (8 * b));
        });
  }
}

/* Kernels wider than 17 columns: every channel of a warp's 16 x 32
 * outputs at once, the table loaded once a kernel row for all of them.
 * (A channel at a time, as the narrow kernel goes, took a 41x41 from 0.41
 * to 0.73 ms on an H200: its table, four 16-byte loads a row, loaded once
 * a channel.) */
template <int NCH, int CHUNKS, int MODE, bool WORDS>
__global__ void
__launch_bounds__ (MMA_THREADS)
    mma_wide_kernel (const KConvCudaJob job, const uint4 *__restrict__ table)
{
  extern __shared__ __align__ (16) uint8_t planes[];
  constexpr int QUADS = CHUNKS + 1; /* 16-byte table loads per row */
  const int kh = job.rows, kw = job.cols;
  constexpr int pitch = mma_pitch (CHUNKS);
  const int tile_h = MMA_TILE_H + kh - 1;
  const int tile_w = MMA_TILE_W + kw - 1; /* columns with weight */
  const int plane_bytes = tile_h * pitch;
  const int x0 = blockIdx.x * MMA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * MMA_TILE_H;
  const int sx0 = x0 - job.ax, sy0 = y0 - job.ay;

  constexpr int QUADS_A_ROW = pitch / 4;
  load_planes_any<NCH, QUADS_A_ROW, WORDS> (job, planes, plane_bytes, pitch,
      sx0, sy0, tile_w, tile_h,
      sx0 >= 0 && sy0 >= 0 && sx0 + tile_w <= job.width &&
          sy0 + tile_h <= job.height);
  __syncthreads ();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wy = warp / MMA_WARPS_X, wx = warp % MMA_WARPS_X;
  const uint32_t a_base = fragment_base (planes, pitch, wx, wy);

  int acc[NCH][MMA_NTILES][4];
#pragma unroll
  for (int c = 0; c < NCH; c++)
#pragma unroll
    for (int t = 0; t < MMA_NTILES; t++)
#pragma unroll
      for (int e = 0; e < 4; e++)
        acc[c][t][e] = 0;

  const uint4 *tp = table + lane * QUADS;
  uint4 next[QUADS];
#pragma unroll
  for (int i = 0; i < QUADS; i++)
    next[i] = __ldg (tp + i);
  for (int dy = 0; dy < kh; dy++) {
    uint32_t L[4 * QUADS];
#pragma unroll
    for (int i = 0; i < QUADS; i++) {
      L[4 * i] = next[i].x;
      L[4 * i + 1] = next[i].y;
      L[4 * i + 2] = next[i].z;
      L[4 * i + 3] = next[i].w;
    }
    /* the next kernel row's words travel while this one computes (the
     * table ends with a row of zeros) */
    tp += 32 * QUADS;
#pragma unroll
    for (int i = 0; i < QUADS; i++)
      next[i] = __ldg (tp + i);

#pragma unroll
    for (int j = 0; j < CHUNKS; j++) {
      uint32_t a[NCH][4];
#pragma unroll
      for (int c = 0; c < NCH; c++)
        kconv_cuda_ldmatrix_x4 (a[c],
            a_base + c * plane_bytes + dy * pitch + 32 * j);
#pragma unroll
      for (int t = 0; t < MMA_NTILES; t++) {
        /* fragment (t, j) meets the kernel only if its first tap
         * offset, 32 j - 8 t - 7, is inside */
        if (32 * j - 8 * t - 7 >= kw)
          continue;
        const int q = 4 * j - t + 3;
#pragma unroll
        for (int c = 0; c < NCH; c++)
          mma_u8s8 (acc[c][t], a[c], L[q], L[q + 2]);
      }
    }
  }

  store_pixels<NCH, WORDS> (job, x0, y0, wx, wy,
      [&] (int t, int e, uint8_t *out) {
#pragma unroll
        for (int c = 0; c < NCH; c++)
          out[c] = kconv_cuda_finish_int<MODE> (job, acc[c][t][e]);
      });
}

size_t
kconv_cuda_mma_smem (int nch, int cols, int rows)
{
  const int pitch = mma_pitch (kconv_cuda_mma_chunks (cols));
  const size_t planes = (size_t) nch * (MMA_TILE_H + rows - 1) * pitch;
  /* the output stage goes over the planes */
  return planes > MMA_STAGE_BYTES ? planes : MMA_STAGE_BYTES;
}

/* One launch of either kernel: its shared memory raised where it needs
 * more than the default, a block a 64 x 64 tile. */
template <class Kernel>
static cudaError_t
launch_kernel (Kernel kernel, KConvCudaSmemAllowed *raised,
    const KConvCudaJob &job, const uint32_t *table, cudaStream_t stream)
{
  const size_t smem = kconv_cuda_mma_smem (job.n_channels, job.cols, job.rows);
  cudaError_t err = kconv_cuda_allow_smem (kernel, smem, raised);
  if (err != cudaSuccess)
    return err;
  dim3 grid (kconv_div_up (job.width, MMA_TILE_W),
      kconv_cuda_grid_rows (job, MMA_TILE_H));
  kernel<<<grid, MMA_THREADS, smem, stream>>> (job, (const uint4 *) table);
  return cudaGetLastError ();
}

template <int NCH, int MODE, bool WORDS>
static cudaError_t
launch_narrow (const KConvCudaJob &job, const uint32_t *table,
    cudaStream_t stream)
{
  static KConvCudaSmemAllowed raised[2];
  const bool staged = WORDS && mma_staged (job);
  return launch_kernel (staged ? mma_narrow_kernel<NCH, MODE, WORDS, WORDS>
                               : mma_narrow_kernel<NCH, MODE, WORDS, false>,
      &raised[staged], job, table, stream);
}

template <int NCH, int CHUNKS, int MODE, bool WORDS>
static cudaError_t
launch_wide (const KConvCudaJob &job, const uint32_t *table,
    cudaStream_t stream)
{
  static KConvCudaSmemAllowed raised;
  return launch_kernel (mma_wide_kernel<NCH, CHUNKS, MODE, WORDS>, &raised, job,
      table, stream);
}

/* CHUNKS 0: the narrow kernel */
template <int NCH, int CHUNKS, int MODE, bool WORDS>
static cudaError_t
launch_as (const KConvCudaJob &job, const uint32_t *table, cudaStream_t stream)
{
  if constexpr (CHUNKS == 0)
    return launch_narrow<NCH, MODE, WORDS> (job, table, stream);
  else
    return launch_wide<NCH, CHUNKS, MODE, WORDS> (job, table, stream);
}

template <int NCH, int CHUNKS>
static cudaError_t
launch_chunks (const KConvCudaJob &job, const uint32_t *table,
    cudaStream_t stream)
{
  const bool words = job.pixel_stride == 4 && job.aligned4;
  if (kconv_cuda_finish_mode (job) == KCONV_FINISH_EXACT_UNIT)
    return words ? launch_as<NCH, CHUNKS, KCONV_FINISH_EXACT_UNIT, true> (job,
                       table, stream)
                 : launch_as<NCH, CHUNKS, KCONV_FINISH_EXACT_UNIT, false> (job,
                       table, stream);
  return words ? launch_as<NCH, CHUNKS, KCONV_FINISH_EXACT, true> (job, table,
                     stream)
               : launch_as<NCH, CHUNKS, KCONV_FINISH_EXACT, false> (job, table,
                     stream);
}

template <int NCH>
static cudaError_t
launch_nch (const KConvCudaJob &job, const uint32_t *table, cudaStream_t stream)
{
  if (is_narrow (job.cols, job.ax))
    return launch_chunks<NCH, 0> (job, table, stream);
  switch (kconv_cuda_mma_chunks (job.cols)) {
  case 2:
    return launch_chunks<NCH, 2> (job, table, stream);
  case 3:
    return launch_chunks<NCH, 3> (job, table, stream);
  case 4:
    return launch_chunks<NCH, 4> (job, table, stream);
  case 5:
    return launch_chunks<NCH, 5> (job, table, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

static cudaError_t
launch_any_mma (const KConvCudaJob *job, const uint32_t *table,
    cudaStream_t stream)
{
  return kconv_cuda_by_channels (job->n_channels, [&] (auto nch) {
    return launch_nch<decltype (nch)::value> (*job, table, stream);
  });
}

KConvStatus
kconv_cuda_launch_mma (const KConvCudaJob *job, const uint32_t *table,
    cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_mma (job, table, stream),
      "kconv_cuda_launch_mma");
}
