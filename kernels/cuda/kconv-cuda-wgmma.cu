/* kconv: exact large kernels on Hopper's warpgroup tensor cores (wgmma)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For exact kernels whose weights all fit a signed byte, on compute
 * capability 9.0 built as sm_90a.  A block (one warpgroup) makes a tile of
 * one channel, 64 columns by 8 NY rows (NY = 12 or 16).  Step i of 32-column
 * chunk j is one product
 *
 *   D[(s, r)][(X, Y)] += sum_k  w[i - s][32 j + k - r] * in[8 Y + i][8 X + 32 j
 * + k] A (64 x 32, weights)     B (32 x 8 NY, pixels)
 *
 * with s, r, X in 0..7 and Y in 0..NY - 1, so that D[(s, r)][(X, Y)] is the
 * sum of output pixel (8 X + r, 8 Y + s): step i gives it kernel row i - s,
 * and steps 0 .. rows + 6 give it every row once.  The tensor work is useful
 * at rows / (rows + 7) x cols / (32 J): 89% at 121x121, where the Toeplitz
 * tiles of kconv-cuda-mma.cu reach 76%, and wgmma runs at about twice the
 * rate of mma.sync.
 *
 * B comes from shared memory.  Each row of the tile's source window is kept
 * as overlapping 16-byte windows, window G holding columns 8 G .. 8 G + 15
 * at 16 G.  B's row n = X + 8 Y (32 bytes of k) is then windows X + 4 j and
 * X + 4 j + 2 of source row 8 Y + i: eight consecutive X make one 128-byte
 * core matrix, the next 16 k are 32 bytes on (LBO) and the next eight n
 * eight rows down (SBO), so step i and chunk j are only a start address.
 *
 * A is in registers.  A thread of warp w holds rows s = 2 w and 2 w + 1 of
 * A: 4-byte windows of kernel rows i - 2 w and i - 2 w - 1, the second
 * being the first of the step before.  They are cut by funnel shifts from
 * padded kernel rows in shared memory; three register sets rotate, so that
 * a step's set is refilled only once the products reading it are done.
 */
#include <string.h>
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define WG_THREADS 128 /* one warpgroup */
#define WG_TILE_W 64   /* output columns a block: 8 X by 8 r */
/* Output rows a block: NY groups Y of 8 rows s, NY 12 or 16 (B is 32 x
 * 8 NY); a thread holds 4 NY sums. */
#define WG_TILE_H(NY) (8 * (NY))
#define WG_MAX_NY 16
#define WG_PAD_ROWS 8  /* zero kernel rows above the kernel, and below it */
#define WG_LOAD_ROWS 4 /* rows whose loads a thread has in flight at once */

/* J: 32-column chunks a step, for outputs r = 0..7 columns apart */
static int
kconv_cuda_wgmma_chunks (int cols)
{
  return (cols + 7 + 31) / 32;
}

/* 16-byte windows a source row holds: B reaches window 7 + 4 (J - 1) + 2. */
static constexpr __host__ __device__ int
wg_windows (int chunks)
{
  return 4 * chunks + 6;
}

/* A padded kernel row: 8 zero bytes, the weights, zeros up to a length that
 * the last window's second word (byte 32 J + 11) stays inside. */
static constexpr __host__ __device__ int
wg_weight_pitch (int chunks)
{
  return 32 * chunks + 16;
}

size_t
kconv_cuda_wgmma_weights_bytes (int rows, int cols)
{
  return (size_t) (rows + 2 * WG_PAD_ROWS) *
         wg_weight_pitch (kconv_cuda_wgmma_chunks (cols));
}

void
kconv_cuda_wgmma_weights (const int8_t *w, int rows, int cols, int8_t *out)
{
  const int pitch = wg_weight_pitch (kconv_cuda_wgmma_chunks (cols));
  memset (out, 0, kconv_cuda_wgmma_weights_bytes (rows, cols));
  for (int dy = 0; dy < rows; dy++)
    memcpy (out + (dy + WG_PAD_ROWS) * pitch + 8, w + dy * cols, cols);
}

/* The sums, staged for the stores: the tile's rows, 64 + 4 sums a row. */
#define WG_SUM_PITCH (WG_TILE_W + 4)

static size_t
smem_for (int cols, int rows, int ny)
{
  const int chunks = kconv_cuda_wgmma_chunks (cols);
  const size_t operands =
      (size_t) (WG_TILE_H (ny) + rows - 1) * 16 * wg_windows (chunks) +
      kconv_cuda_wgmma_weights_bytes (rows, cols);
  const size_t sums = WG_TILE_H (ny) * WG_SUM_PITCH * sizeof (int);
  return operands > sums ? operands : sums;
}

size_t
kconv_cuda_wgmma_smem (int cols, int rows)
{
  return smem_for (cols, rows, WG_MAX_NY);
}

int
kconv_cuda_wgmma_available (int device)
{
#ifdef KCONV_CUDA_WGMMA
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) != cudaSuccess ||
      cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor,
          device) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return major == 9 && minor == 0;
#else
  (void) device;
  return 0;
#endif
}

/* The channel at offset of the tile's source window, as 16-byte windows.
 * Thread t takes the 8 columns of group G = t % GROUPS (8 G .. 8 G + 7) in
 * every SLOTS-th row and writes them to the two windows that hold them.
 * The loads of WG_LOAD_ROWS rows are issued before any is used.  Where the
 * group's columns lie inside the frame and its 4-byte pixels in 16-byte
 * aligned rows, a row is two or three 16-byte loads (the aligned pieces
 * that hold the 8 pixels), the channel picked by permutes and funnel
 * shifts; elsewhere it is a byte load a column, through the border rule,
 * worked out once per column and row. */
template <int J>
__device__ __forceinline__ void
load_windows (const KConvCudaJob &job, uint8_t *plane, int offset, int sx0,
    int sy0, int plane_rows)
{
  constexpr int WINDOWS = wg_windows (J), GROUPS = WINDOWS + 1;
  constexpr int SLOTS = WG_THREADS / GROUPS, ROWS = WG_LOAD_ROWS;
  const int group = threadIdx.x % GROUPS, slot = threadIdx.x / GROUPS;
  if (slot >= SLOTS)
    return;
  const int x = sx0 + 8 * group; /* the group's first column */
  /* row's 8 samples, column x in byte 0, into the two windows that hold
   * them */
  auto put = [&] (int row, uint2 half) {
    uint8_t *window = plane + (row * WINDOWS + group) * 16;
    if (group < WINDOWS)
      *(uint2 *) window = half;
    if (group > 0)
      *(uint2 *) (window - 8) = half;
  };
  /* source row sy0 + row, NULL where the border rule gives zeros */
  auto source_row = [&] (int row) -> const uint8_t * {
    const int sy = row < plane_rows
                       ? kconv_border_index (job.border, sy0 + row, job.height)
                       : -1;
    return sy < 0 ? NULL : job.src + (size_t) sy * job.src_stride;
  };

  /* pixels before x in its aligned piece: the same for the whole block */
  const int skip = x & 3;
  if (job.pixel_stride == 4 &&
      ((uintptr_t) job.src | job.src_stride) % 16 == 0 && x >= 0 &&
      (x & ~3) + (skip ? 12 : 8) <= job.width) {
    const uint32_t pick = offset | (4 + offset) << 4;
    for (int first = slot; first < plane_rows; first += ROWS * SLOTS) {
      uint4 q[ROWS][3];
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const uint8_t *src = source_row (first + r * SLOTS);
#pragma unroll
        for (int k = 0; k < 3; k++)
          q[r][k] = src && (k < 2 || skip)
                        ? __ldg ((const uint4 *) src + (x >> 2) + k)
                        : make_uint4 (0, 0, 0, 0);
      }
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        if (first + r * SLOTS >= plane_rows)
          break;
        uint32_t four[3]; /* the channel of each piece's pixels */
#pragma unroll
        for (int k = 0; k < 3; k++)
          four[k] = __byte_perm (__byte_perm (q[r][k].x, q[r][k].y, pick),
              __byte_perm (q[r][k].z, q[r][k].w, pick), 0x5410);
        put (first + r * SLOTS,
            make_uint2 (__funnelshift_r (four[0], four[1], 8 * skip),
                __funnelshift_r (four[1], four[2], 8 * skip)));
      }
    }
    return;
  }

  int at[8]; /* where each column's sample is in a row; -1: outside, 0 */
#pragma unroll
  for (int c = 0; c < 8; c++) {
    const int sx = kconv_border_index (job.border, x + c, job.width);
    at[c] = sx < 0 ? -1 : sx * job.pixel_stride + offset;
  }
  for (int first = slot; first < plane_rows; first += ROWS * SLOTS) {
    const uint8_t *src[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++)
      src[r] = source_row (first + r * SLOTS);
    uint32_t v[ROWS][8];
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int c = 0; c < 8; c++)
        v[r][c] = src[r] && at[c] >= 0 ? __ldg (src[r] + at[c]) : 0;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      if (first + r * SLOTS >= plane_rows)
        break;
      put (first + r * SLOTS,
          make_uint2 (v[r][0] | v[r][1] << 8 | v[r][2] << 16 | v[r][3] << 24,
              v[r][4] | v[r][5] << 8 | v[r][6] << 16 | v[r][7] << 24));
    }
  }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void
wg_fence (void)
{
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void
wg_commit (void)
{
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void
wg_wait (void)
{
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* d (64 x N, 32-bit) += a (64 x 32 signed bytes, registers) *
 * b (32 x N unsigned bytes, shared memory, described by desc) */
template <int N>
__device__ __forceinline__ void wg_mma (int (&d)[N / 2], uint32_t a0,
    uint32_t a1, uint32_t a2, uint32_t a3, uint64_t desc);

template <>
__device__ __forceinline__ void
wg_mma<96> (int (&d)[48], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
    uint64_t desc)
{
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n96k32.s32.s8.u8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, "
      "%41, %42, %43, %44, %45, %46, %47"
      "}, {%48, %49, %50, %51}, %52, 1;"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),
      "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
      "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]),
      "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]),
      "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]),
      "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]),
      "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]),
      "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]),
      "+r"(d[47])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc));
}

template <>
__device__ __forceinline__ void
wg_mma<128> (int (&d)[64], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
    uint64_t desc)
{
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.u8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, "
      "%41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, "
      "%54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, 1;"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]),
      "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
      "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]),
      "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]),
      "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]),
      "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
      "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]),
      "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]),
      "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]),
      "+r"(d[47]), "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]),
      "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]), "+r"(d[56]),
      "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]),
      "+r"(d[62]), "+r"(d[63])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc));
}
#endif

template <int J, int MODE, int NY>
__global__ void
__launch_bounds__ (WG_THREADS, 2)
    wgmma_kernel (const KConvCudaJob job, const int4 *__restrict__ weights)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__ (128) uint8_t smem[];
  constexpr int ROW_BYTES = 16 * wg_windows (J);
  constexpr int PITCH_WORDS = wg_weight_pitch (J) / 4;
  const int kh = job.rows;
  constexpr int SUMS = 4 * NY;
  const int plane_rows = WG_TILE_H (NY) + kh - 1;
  uint8_t *plane = smem;
  uint32_t *wrows = (uint32_t *) (smem + plane_rows * ROW_BYTES);
  /* a tile's channels are neighbouring blocks, so that they run together
   * and their bytes of the same lines meet in L2 */
  const int channel = blockIdx.x % job.n_channels,
            offset = job.channel_offset[channel];
  const int x0 = blockIdx.x / job.n_channels * WG_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * WG_TILE_H (NY);
  const int sx0 = x0 - job.ax, sy0 = y0 - job.ay;

  const int weight_quads = (kh + 2 * WG_PAD_ROWS) * PITCH_WORDS / 4;
  for (int at = threadIdx.x; at < weight_quads; at += WG_THREADS)
    ((int4 *) wrows)[at] = __ldg (weights + at);
  load_windows<J> (job, plane, offset, sx0, sy0, plane_rows);
  /* the products read shared memory through the async proxy */
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads ();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, tig = lane % 4;
  /* A's words of this thread for kernel row dy: bytes 16 m + 4 tig - g ..
   * + 3 of the row (m = 2 j + k / 16), at byte 8 + that of the padded row */
  const uint32_t *my_words = wrows + tig + ((8 - g) >> 2);
  const uint32_t shift = 8 * ((8 - g) & 3);
  auto row_words = [&] (int dy, uint32_t (&out)[2 * J]) {
    const uint32_t *r = my_words + (dy + WG_PAD_ROWS) * PITCH_WORDS;
#pragma unroll
    for (int m = 0; m < 2 * J; m++)
      out[m] = __funnelshift_r (r[4 * m], r[4 * m + 1], shift);
  };

  /* B of step i, chunk j starts at i ROW_BYTES + 64 j; k + 16 is 32 bytes
   * on, n + 8 eight rows down; no swizzle */
  const uint32_t plane_at = (uint32_t) __cvta_generic_to_shared (plane);
  const uint64_t desc_strides =
      (uint64_t) ((8 * ROW_BYTES) >> 4) << 32 | (uint64_t) (32 >> 4) << 16;

  int acc[SUMS];
#pragma unroll
  for (int k = 0; k < SUMS; k++)
    acc[k] = 0;

  /* cur: kernel row i - 2w (A's rows s = 2w); prev: row i - 2w - 1; next is
   * filled for step i + 1 once step i - 1's products, which read it, are
   * done */
  auto step = [&] (int i, const uint32_t (&cur)[2 * J],
                  const uint32_t (&prev)[2 * J], uint32_t (&next)[2 * J]) {
    wg_fence ();
#pragma unroll
    for (int j = 0; j < J; j++)
      wg_mma<8 * NY> (acc, cur[2 * j], prev[2 * j], cur[2 * j + 1],
          prev[2 * j + 1],
          desc_strides | ((plane_at + i * ROW_BYTES + 64 * j) >> 4));
    wg_commit ();
    wg_wait<1> ();
    row_words (i + 1 - 2 * warp, next);
  };
  uint32_t w0[2 * J], w1[2 * J], w2[2 * J];
  row_words (-2 * warp - 1, w2);
  row_words (-2 * warp, w0);
  const int steps = kh + 7;
  for (int i = 0; i < steps; i += 3) {
    step (i, w0, w2, w1);
    if (i + 1 < steps)
      step (i + 1, w1, w0, w2);
    if (i + 2 < steps)
      step (i + 2, w2, w1, w0);
  }
  wg_wait<0> ();
  /* the sums are read only after the products that write them */
#pragma unroll
  for (int k = 0; k < SUMS; k++)
    asm volatile("" : "+r"(acc[k])::"memory");

  /* The sums go through shared memory (the operands are no longer read),
   * as the tile's rows, so that a thread then finishes and stores four
   * neighbouring pixels.  Sum 4 b + e of a thread is D's row
   * m = 16 w + g + 8 (e / 2) (s = m / 8, r = g) and column
   * n = 8 b + 2 tig + e % 2 (X = n % 8, Y = b): pixel (8 X + r, 8 Y + s). */
  __syncthreads ();
  int *sums = (int *) smem;
#pragma unroll
  for (int b = 0; b < SUMS / 4; b++)
#pragma unroll
    for (int e = 0; e < 4; e++)
      sums[(8 * b + 2 * warp + e / 2) * WG_SUM_PITCH + 16 * tig + 8 * (e % 2) +
           g] = acc[4 * b + e];
  __syncthreads ();

  int others = 0; /* bytes no channel covers, copied by channel 0's blocks */
  if (job.copy_other_bytes && channel == 0) {
    others = (1 << job.pixel_stride) - 1;
    for (int c = 0; c < job.n_channels; c++)
      others &= ~(1 << job.channel_offset[c]);
  }
  for (int k = threadIdx.x; k < WG_TILE_W * WG_TILE_H (NY) / 4;
       k += WG_THREADS) {
    const int ty = k / (WG_TILE_W / 4), tx = 4 * (k % (WG_TILE_W / 4));
    const int y = y0 + ty;
    if (y >= job.row_end)
      break;
    const int4 four = *(const int4 *) (sums + ty * WG_SUM_PITCH + tx);
    const int sum[4] = { four.x, four.y, four.z, four.w };
    uint8_t *d = job.dst + (size_t) y * job.dst_stride;
    const uint8_t *s = job.src + (size_t) y * job.src_stride;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const int x = x0 + tx + i;
      if (x >= job.width)
        break;
      const size_t at = (size_t) x * job.pixel_stride;
      d[at + offset] = (uint8_t) kconv_cuda_finish_int<MODE> (job, sum[i]);
      for (int b = 0; others >> b; b++)
        if (others >> b & 1)
          d[at + b] = s[at + b];
    }
  }
#else
  /* built without sm_90a; the host never launches this */
  __trap ();
#endif
}

template <int J, int MODE, int NY>
static cudaError_t
launch_as (const KConvCudaJob &job, const int8_t *weights, cudaStream_t stream)
{
  static KConvCudaSmemAllowed raised;
  const size_t smem = smem_for (job.cols, job.rows, NY);
  auto kernel = wgmma_kernel<J, MODE, NY>;
  cudaError_t err = kconv_cuda_allow_smem (kernel, smem, &raised);
  if (err != cudaSuccess)
    return err;
  dim3 grid (kconv_div_up (job.width, WG_TILE_W) * job.n_channels,
      kconv_cuda_grid_rows (job, WG_TILE_H (NY)));
  kernel<<<grid, WG_THREADS, smem, stream>>> (job, (const int4 *) weights);
  return cudaGetLastError ();
}

/* Tiles of 12 row groups where they leave fewer idle multiprocessors in the
 * last wave than 16 do: a frame of a few hundred tiles otherwise ends with
 * many multiprocessors running one block, or none.  Two blocks fit on a
 * multiprocessor (shared memory). */
static int
rows_per_tile (const KConvCudaJob &job)
{
  int device = 0, sms = 0;
  if (cudaGetDevice (&device) != cudaSuccess ||
      cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess) {
    cudaGetLastError ();
    return 16;
  }
  const long slots = 2L * sms;
  long cost[2];
  for (int i = 0; i < 2; i++) {
    const int ny = i ? 16 : 12;
    const long blocks = (long) kconv_div_up (job.width, WG_TILE_W) *
                        kconv_cuda_grid_rows (job, WG_TILE_H (ny)) *
                        job.n_channels;
    /* a slot's rows of work: waves times the tile's rows with its halo */
    cost[i] = (blocks + slots - 1) / slots * (WG_TILE_H (ny) + job.rows - 1);
  }
  return cost[0] < cost[1] ? 12 : 16;
}

template <int J>
static cudaError_t
launch_chunks (const KConvCudaJob &job, const int8_t *weights,
    cudaStream_t stream)
{
  const bool unit = kconv_cuda_finish_mode (job) == KCONV_FINISH_EXACT_UNIT;
  if (rows_per_tile (job) == 12)
    return unit ? launch_as<J, KCONV_FINISH_EXACT_UNIT, 12> (job, weights,
                      stream)
                : launch_as<J, KCONV_FINISH_EXACT, 12> (job, weights, stream);
  return unit ? launch_as<J, KCONV_FINISH_EXACT_UNIT, 16> (job, weights, stream)
              : launch_as<J, KCONV_FINISH_EXACT, 16> (job, weights, stream);
}

static cudaError_t
launch_any_wgmma (const KConvCudaJob *job, const int8_t *weights,
    cudaStream_t stream)
{
  switch (kconv_cuda_wgmma_chunks (job->cols)) {
  case 1:
    return launch_chunks<1> (*job, weights, stream);
  case 2:
    return launch_chunks<2> (*job, weights, stream);
  case 3:
    return launch_chunks<3> (*job, weights, stream);
  case 4:
    return launch_chunks<4> (*job, weights, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

KConvStatus
kconv_cuda_launch_wgmma (const KConvCudaJob *job, const int8_t *weights,
    cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_wgmma (job, weights, stream),
      "kconv_cuda_launch_wgmma");
}
