/* kconv: exact 3x3, 5x5 and 7x7 kernels on 4-byte pixels, streamed down
 * columns
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The most common filters (edge, sharpen, sobel, small blurs) on RGBA-family
 * video are close to one read and one write of each byte, so everything
 * besides the arithmetic counts: a shared-memory tile's loads, its index
 * arithmetic and its bank traffic cost more than the multiply-adds.  Here a
 * thread takes four neighbouring pixels and slides down a short strip of
 * rows; a warp covers 128 pixels.
 *
 * - 5x5 and 7x7: source rows are fetched several ahead with asynchronous
 *   copies into a ring in shared memory, which hold no registers while in
 *   flight (one 16-byte piece a lane, and the K / 2 pixels either side of
 *   the warp; pixels outside the frame follow the border rule).  3x3: rows
 *   are loaded straight into registers (kernel_rows3), which its smaller
 *   sums leave room for.
 * - Each source row is cut once into byte planes, then into windows of
 *   four horizontal neighbours of a channel (a permute or funnel shift a
 *   window), and one DP4A multiplies a window by four taps of a kernel row
 *   (signed-byte weights) into an exact 32-bit sum: one instruction a
 *   channel of an output for 3x3 rows, two for 5x5 and 7x7 rows.
 * - 5x5 and 7x7: a source row meets every kernel row at once, so each
 *   output row holds its sums in registers until its last source row has
 *   come.  3x3: each output row is made from the byte planes of its three
 *   source rows at once.
 * - The rounding rule takes two instructions a sample (rows_finish) and
 *   the clamp to bytes comes with packing them (cvt.pack).
 */
#include <stdlib.h>
#include "kconv-cuda-int.cuh"
#include "kconv-cuda-launch.h"
#include "kconv-error.h"

#define ROWS_X 4                /* pixels a thread, side by side */
#define ROWS_SPAN (32 * ROWS_X) /* pixels a warp's row covers */
#define ROWS_WARPS 4            /* warps a block, stacked down */
/* source rows a warp has in flight: 2 to 6 measured alike */
#define ROWS_DEPTH 4
/* a row of the ring: the K / 2 pixels left of the span at words
 * 4 - K / 2 to 3, the span from word 4 (16-byte aligned), the pixels right
 * of it from word 132 */
#define ROWS_PITCH (ROWS_SPAN + 8)

/* Output rows a warp slides down: for 5x5 and 7x7, 4, 8 and 10 no better
 * than 6. */
#define ROWS_STRIP 6

/* What the kernel takes besides the job (KConvCudaStrips): the weights as
 * DP4A wants them and the constants of the rounding rule.  With exact
 * sums |s| <= S (255 times the sum of |w|), n = 2s + d + 2dk >= 0 for
 * k = ceil (S / d), and M = ceil (2^32 / 2d): n M / 2^32 exceeds n / 2d
 * by less than n / 2^32, which is less than the 1 / 2d that the fraction
 * of n / 2d falls short of the next integer by while n 2d < 2^32 (prepare
 * checks it for the largest n), so the high word of n M is
 * floor ((2s + d) / 2d) + k, the rule's quotient plus k.  In
 * KConvCudaStrips: n_bias = d + 2dk, magic = M, add = offset - k. */

/* The output sample for an exact sum s, before the clamp to a byte
 * (negation is folded into the weights). */
template <int MODE, bool ABS>
__device__ __forceinline__ int
rows_finish (const KConvCudaJob &job, const KConvCudaStrips &f, int s)
{
  s = ABS ? abs (s) : s;
  if (MODE == KCONV_FINISH_EXACT_UNIT)
    return s + job.ioffset;
  const uint32_t n = 2u * (uint32_t) s + f.n_bias;
  return (int) __umulhi (n, f.magic) + f.add;
}

/* size bytes (4 or 16) from global to shared memory without passing
 * through registers (cp.async, 8.0 and up; a plain copy before), zeros
 * where bytes is 0 */
__device__ __forceinline__ void
copy_async (uint32_t *to, const uint32_t *from, int bytes, int size)
{
#if __CUDA_ARCH__ >= 800
  /* L2::128B: the L2 fetches the whole 128-byte line at once (measured 2%
   * faster than without the hint, 256B no better) */
  const uint32_t at = (uint32_t) __cvta_generic_to_shared (to);
  if (size == 16)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(
                     at),
                 "l"(from), "r"(bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4, %2;" ::"r"(
                     at),
                 "l"(from), "r"(bytes)
                 : "memory");
#else
  if (size == 16)
    *(uint4 *) to =
        bytes ? __ldg ((const uint4 *) from) : make_uint4 (0, 0, 0, 0);
  else
    *to = bytes ? __ldg (from) : 0u;
#endif
}

/* The copies started since the last call are one group. */
__device__ __forceinline__ void
copies_commit (void)
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* Waits until at most ROWS_DEPTH - 1 groups are in flight. */
__device__ __forceinline__ void
copies_wait (void)
{
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(ROWS_DEPTH - 1) : "memory");
#endif
}

/* Whether a warp's strip of outputs [y_begin, y_end), S rows when whole,
 * and the R source rows and pixels either side of it lie inside the frame,
 * so that none goes through the border rule (the same for the whole warp:
 * no lane waits for another's path). */
__device__ __forceinline__ bool
strip_inside (const KConvCudaJob &job, int y_begin, int y_end, int S, int R,
    int span)
{
  return y_end == y_begin + S && y_begin >= R && y_end + R <= job.height &&
         span >= R && span + ROWS_SPAN + R <= job.width;
}

/* A warp's source rows, fetched ROWS_DEPTH ahead into a ring in shared
 * memory by asynchronous copies, which hold no registers while in
 * flight.  A lane copies its four pixels in one piece where they lie
 * inside the frame (pixel by pixel through the border rule where not),
 * and lanes 0 to H - 1 and 32 - H to 31 one of the H pixels left and right
 * of the span, through the rule: the warps at the frame's edges cost no
 * more than the others.  INSIDE: the strip's rows and the pixels either
 * side of its span lie inside the frame, and none goes through the rule. */
template <int H, bool INSIDE>
struct SourceRows
{
  static const int N = ROWS_X + 2 * H; /* words a lane takes of a row */
  uint32_t *ring;                      /* ROWS_DEPTH rows of ROWS_PITCH words */
  const KConvCudaJob &job;
  int lane, x;   /* the lane's first pixel */
  bool whole;    /* its four pixels lie inside the frame */
  bool halo;     /* the lane copies a pixel beside the span */
  int halo_to;   /* where in a ring row it goes */
  int halo_from; /* and where it comes from (-1: a zero) */
  int last;      /* rows from here on are not read (a strip cut short by the
                  * end of the frame or band: they may not be there yet) */

  __device__ SourceRows (const KConvCudaJob &j, uint32_t *r, int span, int l)
      : ring (r), job (j), lane (l), x (span + 4 * l), last (0)
  {
    whole = INSIDE || x + 3 < job.width;
    halo = lane < H || lane >= 32 - H;
    /* lane l < H: pixel span - H + l; lane l >= 32 - H: span + 96 + H + l */
    const int at = lane < H ? lane - H : ROWS_SPAN + lane - (32 - H);
    halo_to = 4 + at;
    halo_from = INSIDE ? span + at
                       : kconv_border_index (job.border, span + at, job.width);
  }

  /* starts the copies of row t into slot s (zeros past the border where
   * the rule says so, and from last on), as one group */
  __device__ __forceinline__ void load (int s, int t)
  {
    if (INSIDE) {
      const uint32_t *row =
          (const uint32_t *) (job.src + (size_t) t * job.src_stride);
      copy_async (ring + s * ROWS_PITCH + 4 + 4 * lane, row + x, 16, 16);
      if (halo)
        copy_async (ring + s * ROWS_PITCH + halo_to, row + halo_from, 4, 4);
      copies_commit ();
      return;
    }
    const int sy = kconv_border_index (job.border, t, job.height);
    const bool read = sy >= 0 && t < last;
    const uint32_t *row =
        (const uint32_t *) (job.src +
                            (size_t) (read ? sy : 0) * job.src_stride);
    uint32_t *to = ring + s * ROWS_PITCH + 4 + 4 * lane;
    if (whole) {
      copy_async (to, row + x, read ? 16 : 0, 16);
    } else {
#pragma unroll
      for (int p = 0; p < ROWS_X; p++) {
        const int sx = kconv_border_index (job.border, x + p, job.width);
        copy_async (to + p, row + (sx < 0 ? 0 : sx), read && sx >= 0 ? 4 : 0,
            4);
      }
    }
    if (halo)
      copy_async (ring + s * ROWS_PITCH + halo_to,
          row + (halo_from < 0 ? 0 : halo_from), read && halo_from >= 0 ? 4 : 0,
          4);
    copies_commit ();
  }

  __device__ __forceinline__ void prime (int first, int last_)
  {
    last = last_;
#pragma unroll
    for (int s = 0; s < ROWS_DEPTH; s++)
      load (s, first + s);
  }

  /* the strip's source row i (first + i) into w (pixels x - H to
   * x + 3 + H) once its copies have landed (the rows after it may still
   * be in flight), then row i + ROWS_DEPTH into its slot while the strip
   * has one (rows source rows in all); every row commits a group, empty
   * past the strip, so that ROWS_DEPTH - 1 groups are always the ones that
   * may still be in flight.  i is known at compile time once the caller's
   * loop is unrolled. */
  __device__ __forceinline__ void take (int i, int rows, int first,
      uint32_t (&w)[N])
  {
    const int slot = i % ROWS_DEPTH;
    copies_wait ();
    __syncwarp (); /* the other lanes' copies, too */
    const uint32_t *at = ring + slot * ROWS_PITCH + 4 * lane;
    const uint4 v = *(const uint4 *) (at + 4);
    w[H] = v.x;
    w[H + 1] = v.y;
    w[H + 2] = v.z;
    w[H + 3] = v.w;
    /* the aligned pieces either side hold the words beside the span */
    const uint4 l = *(const uint4 *) at, r = *(const uint4 *) (at + 8);
    const uint32_t left[4] = { l.x, l.y, l.z, l.w };
    const uint32_t right[4] = { r.x, r.y, r.z, r.w };
#pragma unroll
    for (int k = 0; k < H; k++) {
      w[k] = left[4 - H + k];
      w[H + 4 + k] = right[k];
    }
    __syncwarp (); /* every lane has read the slot before it is refilled */
    if (i + ROWS_DEPTH < rows)
      load (slot, first + i + ROWS_DEPTH);
    else
      copies_commit ();
  }
};

/* Byte c of four neighbouring pixels a to d, pixel a in byte 0. */
__device__ __forceinline__ uint32_t
channel_of (uint32_t a, uint32_t b, uint32_t c4, uint32_t d, int c)
{
  const uint32_t ab = __byte_perm (a, b, c | (4 + c) << 4);
  const uint32_t cd = __byte_perm (c4, d, c | (4 + c) << 4);
  return __byte_perm (ab, cd, 0x5410);
}

/* Bytes o to o + 3 of the byte string lo, hi (o in 0-3, known at compile
 * time). */
__device__ __forceinline__ uint32_t
window_at (uint32_t lo, uint32_t hi, int o)
{
  return o == 0 ? lo : __funnelshift_r (lo, hi, 8 * o);
}

/* A lane's ROWS_X outputs of row y from pixel x: the samples v[byte][pixel]
 * of the convolved bytes packed with the clamp to bytes, the byte no
 * channel covers (alpha, padding) the source's, from kept (that byte's
 * plane of the source row); in one piece where all lie inside the frame. */
template <int BYTES>
__device__ __forceinline__ void
rows_store (const KConvCudaJob &job, int y, int x, bool whole,
    const int (&v)[4][ROWS_X], uint32_t kept)
{
  uint32_t out[ROWS_X];
#pragma unroll
  for (int p = 0; p < ROWS_X; p++) {
    out[p] = kconv_cuda_pack_bytes (BYTES >> 3 & 1 ? v[3][p] : 0,
        BYTES >> 2 & 1 ? v[2][p] : 0, BYTES >> 1 & 1 ? v[1][p] : 0,
        BYTES & 1 ? v[0][p] : 0);
    if (BYTES == 0x7)
      out[p] = __byte_perm (out[p], kept, 0x0210 | (4 + p) << 12);
    else if (BYTES == 0xe)
      out[p] = __byte_perm (out[p], kept, 0x3210 & ~0xf | (4 + p));
  }
  uint32_t *dst = (uint32_t *) (job.dst + (size_t) y * job.dst_stride) + x;
  if (whole) {
    *(uint4 *) dst = make_uint4 (out[0], out[1], out[2], out[3]);
  } else {
#pragma unroll
    for (int p = 0; p < ROWS_X; p++)
      if (x + p < job.width)
        dst[p] = out[p];
  }
}

/* A thread's ROWS_X outputs on each row of [y_begin, y_end), at x, where
 * y_end - y_begin <= the strip's length S.  The loop over the strip's
 * source rows is unrolled whole, so that every register array is indexed
 * at compile time and a source row meets only the kernel rows of outputs
 * inside the strip; in a strip cut short, the rows past its end are zeros
 * and nothing is written from them. */
template <int K, int MODE, int BYTES, bool ABS, bool INSIDE>
__device__ __forceinline__ void
rows_strip (const KConvCudaJob &job, const KConvCudaStrips &f,
    SourceRows<K / 2, INSIDE> &rows, int y_begin, int y_end)
{
  const int R = K / 2, N = ROWS_X + 2 * R, X = ROWS_X;
  const int S = ROWS_STRIP;
  const int KW = (K + 3) / 4;    /* DP4A words a kernel row */
  const int first = y_begin - R; /* the first source row */
  int sum[S][4][X]; /* output row, byte, pixel (bytes not convolved unused) */
  uint32_t kept[S];
  rows.prime (first, y_end + R);

#pragma unroll
  for (int i = 0; i < S + K - 1; i++) {
    uint32_t w[N];
    rows.take (i, S + K - 1, first, w);
    /* byte c of the four pixels, pixel p in byte p: two permutes a pair
     * of planes */
    uint32_t plane[4];
    {
      const uint32_t lo01 = __byte_perm (w[R], w[R + 1], 0x5140);
      const uint32_t lo23 = __byte_perm (w[R + 2], w[R + 3], 0x5140);
      const uint32_t hi01 = __byte_perm (w[R], w[R + 1], 0x7362);
      const uint32_t hi23 = __byte_perm (w[R + 2], w[R + 3], 0x7362);
      plane[0] = __byte_perm (lo01, lo23, 0x5410);
      plane[1] = __byte_perm (lo01, lo23, 0x7632);
      plane[2] = __byte_perm (hi01, hi23, 0x5410);
      plane[3] = __byte_perm (hi01, hi23, 0x7632);
    }
    if (BYTES != 0xf && i >= R && i < R + S) /* the byte no channel
                                              * covers */
      kept[i - R] = plane[BYTES == 0x7 ? 3 : 0];
#pragma unroll
    for (int c = 0; c < 4; c++) {
      if (!(BYTES >> c & 1))
        continue;
      /* win[j][p]: byte c of the pixels under taps 4j to 4j + 3 of output
       * p (bytes past the kernel's edge meet weights of 0) */
      uint32_t win[KW][X];
      /* byte c of pixels x - 4 to x + 7 (those past x +- R unused) */
      const uint32_t left =
          R == 3 ? channel_of (w[0], w[0], w[1], w[2], c)
                 : __byte_perm (w[0], w[1], c << 8 | (4 + c) << 12);
      const uint32_t right =
          channel_of (w[N - R], w[N - R + 1], w[N - 1], w[N - 1], c);
      const uint32_t line[3] = { left, plane[c], right };
#pragma unroll
      for (int j = 0; j < KW; j++)
#pragma unroll
        for (int p = 0; p < X; p++) {
          /* pixel p - R + 4j, from x - 4 */
          const int o = p - R + 4 * j + 4;
          win[j][p] = window_at (line[o / 4],
              line[o / 4 + 1 < 3 ? o / 4 + 1 : 2], o % 4);
        }
#pragma unroll
      for (int p = 0; p < X; p++) {
        /* source row i is kernel row ky of output row i - ky */
#pragma unroll
        for (int ky = 0; ky < K; ky++) {
          const int o = i - ky;
          if (o >= 0 && o < S)
#pragma unroll
            for (int j = 0; j < KW; j++)
              sum[o][c][p] = kconv_cuda_dp4a_us (win[j][p], f.row[ky][j],
                  ky == 0 && j == 0 ? 0 : sum[o][c][p]);
        }
      }
    }

    /* output row i - (K - 1) has had all its kernel rows */
    const int done = i - (K - 1), y = y_begin + done;
    if (done < 0 || (!INSIDE && y >= y_end))
      continue;
    int v[4][X];
#pragma unroll
    for (int c = 0; c < 4; c++)
#pragma unroll
      for (int p = 0; p < X; p++)
        if (BYTES >> c & 1)
          v[c][p] = rows_finish<MODE, ABS> (job, f, sum[done][c][p]);
    rows_store<BYTES> (job, y, rows.x, rows.whole, v,
        BYTES == 0xf ? 0u : kept[done]);
  }
}

template <int K, int MODE, int BYTES, bool ABS>
__global__ void __launch_bounds__ (32 * ROWS_WARPS)
    kernel_strips (const KConvCudaJob job, const KConvCudaStrips f)
{
  const int S = ROWS_STRIP;
  __shared__ __align__ (16) uint32_t ring[ROWS_WARPS][ROWS_DEPTH][ROWS_PITCH];
  const int y_begin =
      job.row_begin + (blockIdx.y * ROWS_WARPS + threadIdx.y) * S;
  const int y_end = min (y_begin + S, job.row_end);
  if (y_begin >= job.row_end)
    return; /* the whole warp: no lane waits for it */
  const int R = K / 2, span = blockIdx.x * ROWS_SPAN;
  uint32_t *ring_of_warp = &ring[threadIdx.y][0][0];
  if (strip_inside (job, y_begin, y_end, S, R, span)) {
    SourceRows<R, true> rows (job, ring_of_warp, span, threadIdx.x);
    rows_strip<K, MODE, BYTES, ABS, true> (job, f, rows, y_begin, y_end);
  } else {
    SourceRows<R, false> rows (job, ring_of_warp, span, threadIdx.x);
    rows_strip<K, MODE, BYTES, ABS, false> (job, f, rows, y_begin, y_end);
  }
}

/* 3x3 without a ring: each lane loads its 16 bytes of a source row straight
 * into registers ROWS3_DEPTH rows ahead (lanes 0 and 31 also the pixel
 * beside the span, the other neighbours by shuffle), cuts it once into
 * byte planes, and keeps the planes of the last three rows; each output
 * row is then made whole from them, channel by channel, so that only one
 * output row's sums are live.  (The 5x5 and 7x7 way, a source row meeting
 * every kernel row at once, holds three rows of sums for a 3x3 kernel; with
 * rows in registers as well it needed 70-80 registers, this takes 60.)
 * 4K RGBA, H100: 0.0288-0.0291 ms against the ring's 0.0299-0.0301;
 * other strips (4 to 12 rows) and rows ahead (2 to 5) measured
 * 0.0291-0.0334. */
#define ROWS3_STRIP 6
#define ROWS3_DEPTH 3

/* Loads as volatile asm, so that the compiler keeps them where they are
 * written, ROWS3_DEPTH rows ahead, instead of hoisting the whole strip's
 * (which costs the registers this kernel saves). */
__device__ __forceinline__ uint4
rows3_load16 (const uint32_t *p)
{
  uint4 v;
  asm volatile("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ uint32_t
rows3_load4 (const uint32_t *p)
{
  uint32_t v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

/* a source row as the arithmetic wants it: byte c of the lane's four
 * pixels in plane[c], and the pixels left and right of them */
struct Rows3Row
{
  uint32_t plane[4], left, right;
};

/* byte c of the pixels under the three taps of output pixel p (byte 3 meets
 * a weight of 0) */
__device__ __forceinline__ uint32_t
rows3_window (const Rows3Row &r, int c, int p)
{
  const uint32_t plane = r.plane[c];
  if (p == 0)
    return __byte_perm (r.left, plane, c | 4 << 4 | 5 << 8);
  if (p == 1)
    return plane;
  if (p == 2)
    return plane >> 8;
  return __byte_perm (plane, r.right, 2 | 3 << 4 | (4 + c) << 8);
}

/* A warp's strip of 3x3 outputs, rows [y_begin, y_end).  INSIDE: the
 * strip is whole, its source rows and the pixels either side of its span
 * lie inside the frame, so no row or pixel goes through the border rule
 * and every source row is a fixed step from the first.  (The rule's
 * branches and index arithmetic were about a quarter of the instructions,
 * 12.6 M to 9.0 M a 4K frame, and the time stayed the same: the 3x3
 * takes 1.25 times its frame's own copy, kernels/PERFORMANCE.md.) */
template <int MODE, int BYTES, bool ABS, bool INSIDE>
__device__ __forceinline__ void
rows3_strip (const KConvCudaJob &job, const KConvCudaStrips &f, int y_begin,
    int y_end, int span)
{
  const int S = ROWS3_STRIP, D = ROWS3_DEPTH;
  const int T = S + 2; /* source rows of a strip */
  const int lane = threadIdx.x;
  const int x = span + 4 * lane;
  const bool whole = INSIDE || x + 3 < job.width;
  const bool halo = lane == 0 || lane == 31;
  const int halo_from =
      INSIDE ? (lane == 0 ? span - 1 : span + ROWS_SPAN)
             : kconv_border_index (job.border,
                   lane == 0 ? span - 1 : span + ROWS_SPAN, job.width);
  const int first = y_begin - 1, last = y_end + 1;
  const uint8_t *src0 =
      job.src + (size_t) (INSIDE ? first : 0) * job.src_stride;

  uint4 raw[T];     /* a lane's four pixels of source row i */
  uint32_t side[T]; /* lanes 0 and 31: the pixel beside the span */
  /* source row first + i, zeros past the border where the rule says so
   * and from last on (a strip cut short by the end of the frame or band:
   * those rows may not be there yet); pixel by pixel through the rule
   * where the lane's four are not all inside the frame */
  auto load = [&] (int i) {
    side[i] = 0;
    if (INSIDE) {
      const uint32_t *row =
          (const uint32_t *) (src0 + (size_t) i * job.src_stride);
      raw[i] = rows3_load16 (row + x);
      if (halo)
        side[i] = rows3_load4 (row + halo_from);
      return;
    }
    const int t = first + i;
    const int sy = kconv_border_index (job.border, t, job.height);
    const bool read = sy >= 0 && t < last;
    const uint32_t *row =
        (const uint32_t *) (job.src +
                            (size_t) (read ? sy : 0) * job.src_stride);
    raw[i] = make_uint4 (0, 0, 0, 0);
    if (read && whole) {
      raw[i] = rows3_load16 (row + x);
    } else if (read) {
      uint32_t px[4];
#pragma unroll
      for (int p = 0; p < 4; p++) {
        const int sx = kconv_border_index (job.border, x + p, job.width);
        px[p] = sx >= 0 ? rows3_load4 (row + sx) : 0u;
      }
      raw[i] = make_uint4 (px[0], px[1], px[2], px[3]);
    }
    if (read && halo && halo_from >= 0)
      side[i] = rows3_load4 (row + halo_from);
  };
  auto cut = [&] (int i) {
    Rows3Row r;
    const uint4 v = raw[i];
    const uint32_t up = __shfl_up_sync (0xffffffffu, v.w, 1);
    const uint32_t down = __shfl_down_sync (0xffffffffu, v.x, 1);
    r.left = lane == 0 ? side[i] : up;
    r.right = lane == 31 ? side[i] : down;
    const uint32_t lo01 = __byte_perm (v.x, v.y, 0x5140);
    const uint32_t lo23 = __byte_perm (v.z, v.w, 0x5140);
    const uint32_t hi01 = __byte_perm (v.x, v.y, 0x7362);
    const uint32_t hi23 = __byte_perm (v.z, v.w, 0x7362);
    r.plane[0] = __byte_perm (lo01, lo23, 0x5410);
    r.plane[1] = __byte_perm (lo01, lo23, 0x7632);
    r.plane[2] = __byte_perm (hi01, hi23, 0x5410);
    r.plane[3] = __byte_perm (hi01, hi23, 0x7632);
    return r;
  };

  Rows3Row win[3]; /* source rows o - 1, o, o + 1 of output row o */
#pragma unroll
  for (int i = 0; i < D; i++)
    load (i);
#pragma unroll
  for (int i = 0; i < T; i++) {
    if (i + D < T)
      load (i + D);
    win[0] = win[1];
    win[1] = win[2];
    win[2] = cut (i);
    const int y = y_begin + i - 2;
    if (i < 2 || (!INSIDE && y >= y_end))
      continue;
    int v[4][4]; /* byte, pixel */
#pragma unroll
    for (int c = 0; c < 4; c++) {
      if (!(BYTES >> c & 1))
        continue;
#pragma unroll
      for (int p = 0; p < 4; p++) {
        int s = 0;
#pragma unroll
        for (int ky = 0; ky < 3; ky++) {
          s = kconv_cuda_dp4a_us (rows3_window (win[ky], c, p), f.row[ky][0],
              s);
        }
        v[c][p] = rows_finish<MODE, ABS> (job, f, s);
      }
    }
    rows_store<BYTES> (job, y, x, whole, v, win[1].plane[BYTES == 0x7 ? 3 : 0]);
  }
}

template <int MODE, int BYTES, bool ABS>
__global__ void __launch_bounds__ (32 * ROWS_WARPS)
    kernel_rows3 (const KConvCudaJob job, const KConvCudaStrips f)
{
  const int S = ROWS3_STRIP;
  const int y_begin =
      job.row_begin + (blockIdx.y * ROWS_WARPS + threadIdx.y) * S;
  const int y_end = min (y_begin + S, job.row_end);
  if (y_begin >= job.row_end)
    return; /* the whole warp */
  const int span = blockIdx.x * ROWS_SPAN;
  if (strip_inside (job, y_begin, y_end, S, 1, span))
    rows3_strip<MODE, BYTES, ABS, true> (job, f, y_begin, y_end, span);
  else
    rows3_strip<MODE, BYTES, ABS, false> (job, f, y_begin, y_end, span);
}

/* The weights (negation folded in) as signed bytes, and the rounding
 * constants, where the kernel can take the job: 0 where it cannot. */
int
kconv_cuda_strips_prepare (const KConvCudaJob *job_p,
    const KConvCudaIntWeights *iw_p, KConvCudaStrips *f)
{
  const KConvCudaJob &job = *job_p;
  const KConvCudaIntWeights &iw = *iw_p;
  const int k = job.cols;
  if ((k != 3 && k != 5 && k != 7) || job.rows != k ||
      !kconv_cuda_int_layout_fits (job) || !kconv_cuda_rows_aligned16 (job))
    return 0;
  uint64_t s_max = 0;
  memset (f->row, 0, sizeof f->row);
  for (int i = 0; i < k * k; i++) {
    const int32_t w = job.negate ? -iw.w[i] : iw.w[i];
    if (w < -128 || w > 127)
      return 0;
    s_max += 255u * (uint32_t) abs (w);
    f->row[i / k][i % k / 4] |= (uint32_t) (uint8_t) (int8_t) w
                                << (8 * (i % k % 4));
  }
  const uint64_t d = (uint64_t) job.divisor;
  const uint64_t kk = (s_max + d - 1) / d;
  const uint64_t n_max = 2 * s_max + d + 2 * d * kk;
  if (kconv_cuda_finish_mode (job) == KCONV_FINISH_EXACT &&
      n_max * 2 * d >= ((uint64_t) 1 << 32))
    return 0;
  f->n_bias = (uint32_t) (d + 2 * d * kk);
  f->magic = (uint32_t) ((((uint64_t) 1 << 32) + 2 * d - 1) / (2 * d));
  f->add = job.ioffset - (int32_t) kk;
  f->size = k;
  return 1;
}

template <int MODE, bool ABS>
static cudaError_t
launch_strips (const KConvCudaJob &job, const KConvCudaStrips &f,
    cudaStream_t stream)
{
  return kconv_cuda_by_bytes (job, [&] (auto bytes) {
    const int B = decltype (bytes)::value;
    auto rows3 = [&] () {
      dim3 block (32, ROWS_WARPS);
      dim3 grid (kconv_div_up (job.width, ROWS_SPAN),
          kconv_cuda_grid_rows (job, ROWS_WARPS * ROWS3_STRIP));
      kernel_rows3<MODE, B, ABS><<<grid, block, 0, stream>>> (job, f);
      return cudaGetLastError ();
    };
    auto go = [&] (auto size) {
      const int K = decltype (size)::value;
      dim3 block (32, ROWS_WARPS);
      dim3 grid (kconv_div_up (job.width, ROWS_SPAN),
          kconv_cuda_grid_rows (job, ROWS_WARPS * ROWS_STRIP));
      kernel_strips<K, MODE, B, ABS><<<grid, block, 0, stream>>> (job, f);
      return cudaGetLastError ();
    };
    switch (f.size) {
    case 3:
      return rows3 ();
    case 5:
      return go (std::integral_constant<int, 5>{});
    case 7:
      return go (std::integral_constant<int, 7>{});
    default:
      return cudaErrorInvalidValue;
    }
  });
}

static cudaError_t
launch_any_strips (const KConvCudaJob *job, const KConvCudaStrips *p,
    cudaStream_t stream)
{
  const KConvCudaStrips &f = *p;
  const bool unit = kconv_cuda_finish_mode (*job) == KCONV_FINISH_EXACT_UNIT;
  if (unit)
    return job->absolute
               ? launch_strips<KCONV_FINISH_EXACT_UNIT, true> (*job, f, stream)
               : launch_strips<KCONV_FINISH_EXACT_UNIT, false> (*job, f,
                     stream);
  return job->absolute
             ? launch_strips<KCONV_FINISH_EXACT, true> (*job, f, stream)
             : launch_strips<KCONV_FINISH_EXACT, false> (*job, f, stream);
}

KConvStatus
kconv_cuda_launch_strips (const KConvCudaJob *job, const KConvCudaStrips *p,
    cudaStream_t stream)
{
  return kconv_cuda_status (launch_any_strips (job, p, stream),
      "kconv_cuda_launch_strips");
}
