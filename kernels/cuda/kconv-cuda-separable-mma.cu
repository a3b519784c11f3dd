/* kconv: separable float kernels on tensor cores, in half precision
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For inexact separable kernels (a gaussian, say) up to 33x33, on devices
 * with tensor cores (8.0 and up).  Both passes are matrix products with a
 * Toeplitz matrix of the 1D weights, mma.m16n8k16 (half inputs, float
 * sums):
 *
 *   pass 1:  I^T[x][y]  = sum_k  H[x][k] * tile[y][k]       (16 x 8 a step)
 *   pass 2:  out^T[x][y'] = sum_y I^T[x][y] * V[y][y']
 *
 * Pass 1's results are laid out in registers exactly as pass 2's first
 * operand wants them, so the intermediate never leaves the warp: it is
 * rounded to half once, there.  The error this costs is bounded on the
 * host from the actual half weights (kconv_cuda_separable_mma_bound) and
 * the path is taken only where the bound keeps every output within 1 of
 * the scalar reference.  A warp makes 16 columns x 32 rows of every channel.
 */
#include <cuda_fp16.h>
#include <math.h>
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define SEPMMA_WARPS_X 4 /* warps across a block */
#define SEPMMA_WARPS_Y 2 /* warps down a block */
#define SEPMMA_THREADS (32 * SEPMMA_WARPS_X * SEPMMA_WARPS_Y)
#define SEPMMA_TILE_W (16 * SEPMMA_WARPS_X) /* output columns: 64 */
#define SEPMMA_TILE_H (32 * SEPMMA_WARPS_Y) /* output rows: 64 */
#define SEPMMA_MAX_SIZE 33
#define SEPMMA_PAD 20 /* zeros either side of the 1D weights */

/* 16-tap chunks of the Toeplitz products for a kernel side n: pass 1's 16
 * outputs read 16 + n - 1 columns after the shift, pass 2's 8 outputs
 * 8 + n - 1 rows from up to 8 rows before them (one count for both keeps
 * the instantiations few). */
static int
chunks_for (int cols, int rows, int shift)
{
  const int c1 = (15 + cols + shift + 15) / 16, c2 = (15 + rows + 15) / 16;
  return c1 > c2 ? c1 : c2;
}

/* Whether a block can load and store its frame in 16-byte pieces: 4-byte
 * pixels, rows 16-byte aligned, every byte of an output pixel this
 * launch's to write (the bytes no channel covers copied from the source),
 * and a tile moved left to a multiple of 4 pixels (tile_shift) reading no
 * more chunks than one that is not. */
static bool
quads_align (const KConvCudaJob &job)
{
  return job.pixel_stride == 4 && job.aligned4 &&
         kconv_cuda_rows_aligned16 (job) &&
         (job.copy_other_bytes || job.n_channels == 4) &&
         chunks_for (job.cols, job.rows, -job.ax & 3) ==
             chunks_for (job.cols, job.rows, 0);
}

/* Columns the tile starts left of the first one the outputs read, so that
 * its quads are 16-byte aligned (the tiles start at multiples of 64
 * pixels); 0 where the block does not load in 16-byte pieces. */
static int
tile_shift (const KConvCudaJob &job)
{
  return quads_align (job) ? -job.ax & 3 : 0;
}

/* Rows of 8 pass 1 makes for a warp: pass 2's four 8-row outputs n read
 * groups n' .. n' + 2 CH - 1, n' = n rounded down to even. */
__host__ __device__ constexpr int
sepmma_groups (int chunks)
{
  return 2 * chunks + 2;
}

static constexpr __host__ __device__ int
tile_rows (int chunks)
{
  return 32 * (SEPMMA_WARPS_Y - 1) + 8 * sepmma_groups (chunks);
}

/* half elements a tile row holds; its pitch in bytes adds 16 so that the
 * 8 rows of an ldmatrix fall in different banks */
static constexpr __host__ __device__ int
tile_cols (int chunks)
{
  return 16 * (SEPMMA_WARPS_X - 1) + 16 * chunks;
}

/* Words a row of the output stage holds: 4 more than the tile's width, so
 * that a warp's stores (rows 2 apart, 8 columns) fall in different banks
 * and rows stay 16-byte aligned. */
#define SEPMMA_STAGE_PITCH (SEPMMA_TILE_W + 4)
#define SEPMMA_STAGE_BYTES (4 * SEPMMA_TILE_H * SEPMMA_STAGE_PITCH)

/* The byte no channel covers of each output pixel of 3-channel 4-byte
 * pixels (alpha, padding), a word a quad, kept by the aligned loader so
 * that the store needs no second read of the source. */
#define SEPMMA_KEPT_BYTES (SEPMMA_TILE_H * SEPMMA_TILE_W)

size_t
kconv_cuda_separable_mma_smem (int nch, const KConvCudaJob *job)
{
  const int ch = chunks_for (job->cols, job->rows, tile_shift (*job));
  const size_t planes =
      (size_t) nch * tile_rows (ch) * (2 * tile_cols (ch) + 16);
  if (!quads_align (*job))
    return planes;
  /* the stage over the planes, the kept bytes after both */
  return (planes > SEPMMA_STAGE_BYTES ? planes : SEPMMA_STAGE_BYTES) +
         SEPMMA_KEPT_BYTES;
}

int
kconv_cuda_separable_mma_fits (int cols, int rows)
{
  return cols <= SEPMMA_MAX_SIZE && rows <= SEPMMA_MAX_SIZE;
}

/* Rounds h and v to half after moving their scale so that sum |h| = 1
 * (the intermediate then stays within +-255), and returns a bound on how
 * far an output can be from the float result: each set of weights' rounding
 * through the other's sum, and the intermediate's rounding. */
double
kconv_cuda_separable_mma_prepare (const float *h, const float *v, int cols,
    int rows, float *h16, float *v16)
{
  double sh = 0.0;
  for (int i = 0; i < cols; i++)
    sh += fabs (h[i]);
  if (sh == 0.0)
    sh = 1.0;
  double eh = 0.0, ev = 0.0, ah = 0.0, av = 0.0;
  for (int i = 0; i < cols; i++) {
    const double x = h[i] / sh;
    h16[i] = __half2float (__float2half_rn ((float) x));
    eh += fabs (x - h16[i]);
    ah += fabs (h16[i]);
  }
  for (int i = 0; i < rows; i++) {
    const double x = v[i] * sh;
    v16[i] = __half2float (__float2half_rn ((float) x));
    if (!isfinite (v16[i]))
      return INFINITY;
    ev += fabs (x - v16[i]);
    av += fabs (v16[i]);
  }
  /* 2^-11: half's relative rounding; 0.01 covers the float sums */
  return 255.0 * (eh * av + ah * ev) + 255.0 * ah * av * ldexp (1.0, -11) +
         0.01;
}

/* two floats rounded to a half pair, lo in the low half */
__device__ __forceinline__ uint32_t
half2_bits (float lo, float hi)
{
  uint32_t r = 0;
#if __CUDA_ARCH__ >= 800
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

/* a half pair minus (1024, 1024): 0x6400 | b is half (1024 + b) */
__device__ __forceinline__ uint32_t
half2_minus_1024 (uint32_t bits)
{
  uint32_t r;
  asm("sub.f16x2 %0, %1, %2;" : "=r"(r) : "r"(bits), "r"(0x64006400u));
  return r;
}

__device__ __forceinline__ void
ldmatrix_x2 (uint32_t (&r)[2], uint32_t shared_addr)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_addr));
}

/* d += a (16 x 16 half) * b (16 x 8 half), float sums */
__device__ __forceinline__ void
mma_f16 (float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
    uint32_t b0, uint32_t b1)
{
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
}

/* Half planes, one per channel: rows x cols samples from (sx0, sy0), the
 * border rule applied, zeros past the used_rows x used_cols window (they
 * only ever meet zero weights). */
template <int NCH, int QUADS, bool WORDS, bool INTERIOR>
__device__ __forceinline__ void
load_half_planes (const KConvCudaJob &job, uint8_t *planes, int plane_bytes,
    int pitch, int sx0, int sy0, int rows, int used_rows, int used_cols)
{
  /* QUADS fours of columns a row; several rows' loads in flight at once */
#pragma unroll 4
  for (int at = threadIdx.x; at < rows * QUADS; at += SEPMMA_THREADS) {
    const int ty = at / QUADS, q = at - ty * QUADS;
    const int sy = INTERIOR
                       ? sy0 + ty
                       : kconv_border_index (job.border, sy0 + ty, job.height);
    const uint8_t *row = job.src + (size_t) (sy < 0 ? 0 : sy) * job.src_stride;
    {
      /* half (1024 + b) is 0x6400 | b: four samples of a channel, then
       * minus 1024 two at a time */
      uint32_t lo[NCH], hi[NCH];
#pragma unroll
      for (int c = 0; c < NCH; c++)
        lo[c] = hi[c] = 0x64006400u;
      if (ty < used_rows && 4 * q < used_cols) {
        uint32_t bytes[NCH];
        kconv_cuda_load_quad<NCH, WORDS, INTERIOR> (job, row, sy, sx0 + 4 * q,
            bytes);
#pragma unroll
        for (int c = 0; c < NCH; c++) {
          lo[c] = __byte_perm (bytes[c], 0x6464u, 0x5140);
          hi[c] = __byte_perm (bytes[c], 0x6464u, 0x5342);
        }
      }
#pragma unroll
      for (int c = 0; c < NCH; c++)
        *(uint2 *) (planes + c * plane_bytes + ty * pitch + 8 * q) =
            make_uint2 (half2_minus_1024 (lo[c]), half2_minus_1024 (hi[c]));
    }
  }
}

/* The float rule (kconv_cuda_finish_as) before its clamp to [0, 255]:
 * floor (acc + bias) by adding 1.5 * 2^23 rounded toward zero, where a
 * float's last bit is 1, and taking the integer out of the bits (exact for
 * |acc + bias| < 2^22; the clamp comes with packing the bytes). */
template <bool ABS>
__device__ __forceinline__ int
finish_unclamped (const KConvCudaJob &job, float acc)
{
  const float v = (ABS ? fabsf (acc) : acc) + job.bias;
  return (int) __float_as_uint (__fadd_rz (v, 12582912.f)) - 0x4b400000;
}

/* load_half_planes for an interior tile whose quads are 16-byte aligned:
 * a thread keeps one column of quads and steps down the rows, so that its
 * addresses advance by adding, and a channel of a quad takes a permute and
 * a logic op a half pair (half (1024 + b) is 0x6400 | b) before the
 * subtraction. */
template <int NCH, int QUADS>
__device__ __forceinline__ void
load_half_planes_aligned (const KConvCudaJob &job, uint8_t *planes,
    int plane_bytes, int pitch, int sx0, int sy0, int rows, int used_rows,
    int used_cols, uint32_t *kept, int kept_byte, int out_q0)
{
  constexpr int STEP = SEPMMA_THREADS / QUADS; /* rows a pass */
  if (threadIdx.x >= STEP * QUADS)
    return;
  const int q = threadIdx.x % QUADS, ty0 = threadIdx.x / QUADS;
  uint32_t sel[NCH];
#pragma unroll
  for (int c = 0; c < NCH; c++)
    sel[c] = job.channel_offset[c] | (4 + job.channel_offset[c]) << 8;
  const bool used = 4 * q < used_cols;
  const uint8_t *from =
      job.src + (size_t) (sy0 + ty0) * job.src_stride + 4 * (sx0 + 4 * q);
  const size_t from_step = (size_t) STEP * job.src_stride;
  uint8_t *to = planes + ty0 * pitch + 8 * q;
  /* the quad's output pixels, where they are: their kept bytes */
  const int out_q = q - out_q0;
  const bool keeps = kept && out_q >= 0 && out_q < SEPMMA_TILE_W / 4;
  const uint32_t kept_sel = kept_byte | (4 + kept_byte) << 4;
#pragma unroll 4
  for (int ty = ty0; ty < rows; ty += STEP) {
    uint4 v = make_uint4 (0, 0, 0, 0);
    if (used && ty < used_rows)
      v = __ldg ((const uint4 *) from);
    const int out_row = ty - job.ay;
    if (keeps && out_row >= 0 && out_row < SEPMMA_TILE_H)
      kept[out_row * (SEPMMA_TILE_W / 4) + out_q] =
          __byte_perm (__byte_perm (v.x, v.y, kept_sel),
              __byte_perm (v.z, v.w, kept_sel), 0x5410);
#pragma unroll
    for (int c = 0; c < NCH; c++) {
      const uint32_t lo =
          (__byte_perm (v.x, v.y, sel[c]) & 0x00ff00ffu) | 0x64006400u;
      const uint32_t hi =
          (__byte_perm (v.z, v.w, sel[c]) & 0x00ff00ffu) | 0x64006400u;
      *(uint2 *) (to + c * plane_bytes) =
          make_uint2 (half2_minus_1024 (lo), half2_minus_1024 (hi));
    }
    from += from_step;
    to += STEP * pitch;
  }
}

/* The block's outputs through shared memory (over the planes, once every
 * warp is done with them), then out in 16-byte pieces with the bytes no
 * channel covers from the source: a few wide accesses a thread instead of
 * a load and a store for every pixel. */
template <int NCH, bool ABS>
__device__ __forceinline__ void
store_staged (const KConvCudaJob &job, uint8_t *planes,
    const float (&out)[NCH][4][4], int x0, int y0, int wx, int wy, int g,
    int tig, const uint32_t *kept, int kept_byte)
{
  uint32_t *stage = (uint32_t *) planes;
  /* channel c from byte c of a packed word to its place in the pixel,
   * zeros (byte 4) in the other bytes */
  uint32_t place = 0x4444;
#pragma unroll
  for (int ch = 0; ch < NCH; ch++)
    place ^= (uint32_t) (4 ^ ch) << (4 * job.channel_offset[ch]);
  __syncthreads ();
#pragma unroll
  for (int n = 0; n < 4; n++)
#pragma unroll
    for (int e = 0; e < 4; e++) {
      int v[4] = { 0, 0, 0, 0 };
#pragma unroll
      for (int ch = 0; ch < NCH; ch++)
        v[ch] = finish_unclamped<ABS> (job, out[ch][n][e]);
      stage[(32 * wy + 8 * n + 2 * tig + e % 2) * SEPMMA_STAGE_PITCH + 16 * wx +
            g + 8 * (e / 2)] =
          __byte_perm (kconv_cuda_pack_bytes (v[3], v[2], v[1], v[0]), 0,
              place);
    }
  uint32_t keep = 0xffffffffu;
#pragma unroll
  for (int ch = 0; ch < NCH; ch++)
    keep &= ~(0xffu << (8 * job.channel_offset[ch]));
  __syncthreads ();
  kconv_cuda_write_staged<SEPMMA_TILE_W, SEPMMA_TILE_H, SEPMMA_STAGE_PITCH,
      SEPMMA_THREADS> (job, stage, x0, y0, keep, kept, kept_byte);
}

template <int NCH, int CH, bool WORDS, bool VEC>
__global__ void
__launch_bounds__ (SEPMMA_THREADS, NCH >= 4 ? 2 : 3)
    separable_mma_kernel (const KConvCudaJob job, const KConvCudaWeights hv,
        int shift)
{
  extern __shared__ __align__ (16) uint8_t planes[];
  constexpr int GROUPS = sepmma_groups (CH);
  const int kh = job.rows, kw = job.cols;
  constexpr int rows = tile_rows (CH), pitch = 2 * tile_cols (CH) + 16;
  const int plane_bytes = rows * pitch;
  const int x0 = blockIdx.x * SEPMMA_TILE_W;
  const int y0 = job.row_begin + blockIdx.y * SEPMMA_TILE_H;
  const int sx0 = x0 - job.ax - shift, sy0 = y0 - job.ay;
  const int used_rows = SEPMMA_TILE_H + kh - 1;
  const int used_cols = SEPMMA_TILE_W + kw - 1 + shift;

  /* h and v in shared memory, where lanes reading different weights do
   * not take turns (as in constant memory), with zeros around them so that
   * the fragments below need no bounds checks */
  __shared__ float hpad[SEPMMA_PAD + 16 * 3 + SEPMMA_PAD];
  __shared__ float vpad[SEPMMA_PAD + 16 * 3 + SEPMMA_PAD];
  for (int i = threadIdx.x; i < 16 * 3 + 2 * SEPMMA_PAD; i += SEPMMA_THREADS) {
    const int k = i - SEPMMA_PAD;
    hpad[i] = k >= 0 && k < kw ? hv.w[k] : 0.f;
    vpad[i] = k >= 0 && k < kh ? hv.w[kw + k] : 0.f;
  }

  constexpr int QUADS = tile_cols (CH) / 4;
  const bool interior = sx0 >= 0 && sy0 >= 0 && sx0 + used_cols <= job.width &&
                        sy0 + used_rows <= job.height;
  /* the aligned loader reads whole quads: the last may reach 3 pixels past
   * the columns with weight, which must still be in the frame */
  const bool quads_inside =
      VEC && interior && sx0 + ((used_cols + 3) & ~3) <= job.width;
  /* 3 channels of 4-byte pixels: the fourth byte kept as the tile loads */
  uint32_t *kept =
      NCH == 3 && quads_inside && job.copy_other_bytes
          ? (uint32_t *) (planes + (NCH * plane_bytes > SEPMMA_STAGE_BYTES
                                           ? NCH * plane_bytes
                                           : SEPMMA_STAGE_BYTES))
          : NULL;
  const int kept_byte = 6 - job.channel_offset[0] - job.channel_offset[1] -
                        job.channel_offset[NCH > 2 ? 2 : 0];
  if (quads_inside)
    load_half_planes_aligned<NCH, QUADS> (job, planes, plane_bytes, pitch, sx0,
        sy0, rows, used_rows, used_cols, kept, kept_byte, (job.ax + shift) / 4);
  else if (interior)
    load_half_planes<NCH, QUADS, WORDS, true> (job, planes, plane_bytes, pitch,
        sx0, sy0, rows, used_rows, used_cols);
  else
    load_half_planes<NCH, QUADS, WORDS, false> (job, planes, plane_bytes, pitch,
        sx0, sy0, rows, used_rows, used_cols);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, tig = lane % 4;
  const int wy = warp / SEPMMA_WARPS_X, wx = warp % SEPMMA_WARPS_X;

  __syncthreads ();

  /* Toeplitz fragments, the same for every row and channel.  Pass 1,
   * chunk c: H[m][k] = h[16 c + k - m - shift]; registers (row g | g + 8) x
   * (columns 2 tig, 2 tig + 1 | + 8).  Pass 2, chunk c: V[k][n] =
   * v[16 c + k - n], and V8 the same 8 rows later, for outputs that start
   * at an odd group of 8 rows, so that every A operand of pass 2 is a pair
   * of groups that starts even; registers (rows 2 tig, 2 tig + 1 | + 8) x
   * column g.  A's fragments hold equal words (Toeplitz), which the
   * compiler would merge and then copy into place before every product:
   * loading them through a volatile pointer keeps them apart. */
  const volatile float *hfrag = hpad;
  uint32_t H[CH][4], V[CH][2], V8[CH][2];
#pragma unroll
  for (int c = 0; c < CH; c++) {
#pragma unroll
    for (int r = 0; r < 4; r++) {
      const int m = g + 8 * (r & 1), k = 16 * c + 2 * tig + 8 * (r >> 1);
      const int t = SEPMMA_PAD + k - m - shift;
      H[c][r] = half2_bits (hfrag[t], hfrag[t + 1]);
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
      const int k = 16 * c + 2 * tig + 8 * r;
      V[c][r] =
          half2_bits (vpad[SEPMMA_PAD + k - g], vpad[SEPMMA_PAD + k + 1 - g]);
      V8[c][r] = half2_bits (vpad[SEPMMA_PAD + k - g - 8],
          vpad[SEPMMA_PAD + k + 1 - g - 8]);
    }
  }

  /* pass 1 reads 8 tile rows (lanes' rows) by 16 columns a chunk: lanes
   * 8 i .. 8 i + 7 address matrix i, which starts 8 i columns in */
  const uint32_t b_base = (uint32_t) __cvta_generic_to_shared (planes) +
                          (32 * wy + lane % 8) * pitch +
                          2 * (16 * wx + 8 * (lane / 8));

  float out[NCH][4][4];
#pragma unroll
  for (int ch = 0; ch < NCH; ch++) {
    /* pass 1: I^T for GROUPS groups of 8 rows, rounded to half pairs laid
     * out as pass 2's A fragments */
    uint32_t I[GROUPS][2];
#pragma unroll
    for (int r = 0; r < GROUPS; r++) {
      float d[4] = { 0.f, 0.f, 0.f, 0.f };
      const uint32_t at = b_base + ch * plane_bytes + 8 * r * pitch;
#pragma unroll
      for (int c = 0; c < CH; c += 2) {
        if (c + 1 < CH) {
          uint32_t b[4];
          kconv_cuda_ldmatrix_x4 (b, at + 2 * 16 * c);
          mma_f16 (d, H[c][0], H[c][1], H[c][2], H[c][3], b[0], b[1]);
          mma_f16 (d, H[c + 1][0], H[c + 1][1], H[c + 1][2], H[c + 1][3], b[2],
              b[3]);
        } else {
          uint32_t b[2];
          ldmatrix_x2 (b, at + 2 * 16 * c);
          mma_f16 (d, H[c][0], H[c][1], H[c][2], H[c][3], b[0], b[1]);
        }
      }
      I[r][0] = half2_bits (d[0], d[1]);
      I[r][1] = half2_bits (d[2], d[3]);
    }
    /* pass 2: four groups of 8 output rows */
#pragma unroll
    for (int n = 0; n < 4; n++) {
#pragma unroll
      for (int e = 0; e < 4; e++)
        out[ch][n][e] = 0.f;
#pragma unroll
      for (int c = 0; c < CH; c++) {
        const int r = (n & ~1) + 2 * c;
        mma_f16 (out[ch][n], I[r][0], I[r][1], I[r + 1][0], I[r + 1][1],
            n & 1 ? V8[c][0] : V[c][0], n & 1 ? V8[c][1] : V[c][1]);
      }
    }
  }

  /* out[.][n][e]: column g + 8 (e / 2), row 8 n + 2 tig + e % 2 */
  if (VEC && job.absolute) /* the whole block alike: no lane waits */
    store_staged<NCH, true> (job, planes, out, x0, y0, wx, wy, g, tig, kept,
        kept_byte);
  else if (VEC)
    store_staged<NCH, false> (job, planes, out, x0, y0, wx, wy, g, tig, kept,
        kept_byte);
  else
#pragma unroll
    for (int n = 0; n < 4; n++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int y = y0 + 32 * wy + 8 * n + 2 * tig + e % 2;
        const int x = x0 + 16 * wx + g + 8 * (e / 2);
        if (y >= job.row_end || x >= job.width)
          continue;
        uint8_t px[NCH];
#pragma unroll
        for (int ch = 0; ch < NCH; ch++)
          px[ch] =
              kconv_cuda_finish_as<KCONV_FINISH_FLOAT> (job, out[ch][n][e]);
        kconv_cuda_store_pixel<NCH, WORDS ? 1 : 0> (job, x, y, px);
      }
}

template <int NCH, int CH, bool WORDS>
static cudaError_t
launch_as (const KConvCudaJob &job, const KConvCudaWeights *hv,
    cudaStream_t stream)
{
  static KConvCudaSmemAllowed raised[2];
  const int shift = tile_shift (job);
  const bool vec = WORDS && quads_align (job);
  const size_t smem = kconv_cuda_separable_mma_smem (NCH, &job);
  auto kernel = vec ? separable_mma_kernel<NCH, CH, WORDS, WORDS>
                    : separable_mma_kernel<NCH, CH, WORDS, false>;
  cudaError_t err = kconv_cuda_allow_smem (kernel, smem, &raised[vec]);
  if (err != cudaSuccess)
    return err;
  dim3 grid (kconv_div_up (job.width, SEPMMA_TILE_W),
      kconv_cuda_grid_rows (job, SEPMMA_TILE_H));
  kernel<<<grid, SEPMMA_THREADS, smem, stream>>> (job, *hv, shift);
  return cudaGetLastError ();
}

template <int NCH>
static cudaError_t
launch_nch (const KConvCudaJob &job, const KConvCudaWeights *hv,
    cudaStream_t stream)
{
  const bool words = job.pixel_stride == 4 && job.aligned4;
  switch (chunks_for (job.cols, job.rows, tile_shift (job))) {
  case 1:
    return words ? launch_as<NCH, 1, true> (job, hv, stream)
                 : launch_as<NCH, 1, false> (job, hv, stream);
  case 2:
    return words ? launch_as<NCH, 2, true> (job, hv, stream)
                 : launch_as<NCH, 2, false> (job, hv, stream);
  case 3:
    return words ? launch_as<NCH, 3, true> (job, hv, stream)
                 : launch_as<NCH, 3, false> (job, hv, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

static cudaError_t
launch_any_separable_mma (const KConvCudaJob *job, const KConvCudaWeights *hv,
    cudaStream_t stream)
{
  return kconv_cuda_by_channels (job->n_channels, [&] (auto nch) {
    return launch_nch<decltype (nch)::value> (*job, hv, stream);
  });
}

KConvStatus
kconv_cuda_launch_separable_mma (const KConvCudaJob *job,
    const KConvCudaWeights *hv, cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_separable_mma (job, hv, stream),
      "kconv_cuda_launch_separable_mma");
}
