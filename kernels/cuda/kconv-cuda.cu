/* kconv: CUDA backend, host side: device, buffers, strategy, launches
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <cuda_runtime.h>

#include "kconv-cuda.h"
#include "kconv-cuda-sides.h"
#include "kconv-error.h"
#include "kconv-tuning.h"
#include "kconv-cuda-fft.h"
#include "kconv-cuda-launch.h"

/* Above this much shared memory per block, split the channels across
 * launches so that two blocks still fit on a multiprocessor. */
#define SMEM_COMFORT (100 * 1024)

/* From this many weights on, a non-separable kernel goes through the FFT
 * (measured: see kernels/PERFORMANCE.md). */
#define FFT_MIN_TAPS (33 * 33)

/* From this many weights on, an exact kernel whose weights fit a signed
 * byte goes to the tensor cores, except square 3x3 to 7x7, where the
 * integer paths of the small kernel are faster (7x7 on 4K RGBA: streamed
 * 0.048 ms, DP4A tiles 0.067, tensor cores 0.112; see
 * kernels/PERFORMANCE.md). */
#define MMA_MIN_TAPS 25

/* From this size on (both sides), such a kernel takes the warpgroup
 * tensor cores where the device has them: there mma.sync's warps need a
 * third 32-column chunk and wgmma still two.  4K RGBA on an H200: 33x33
 * mma.sync 0.196 ms against wgmma 0.250, 34x34 0.334 against 0.252, 41x41
 * 0.388 against 0.267, 61x61 0.553 against 0.391 (kernels/PERFORMANCE.md;
 * square kernels only were timed). */
#define WGMMA_MIN_SIDE 34

typedef enum {
  STRATEGY_WGMMA,         /* the same on Hopper's warpgroup tensor cores */
  STRATEGY_MMA,           /* exact, signed-byte weights, tensor cores */
  STRATEGY_STRIPS,        /* small exact: DP4A streamed down columns */
  STRATEGY_PACKED,        /* small exact: tiles, two channels in 16-bit lanes */
  STRATEGY_DP4A,          /* small exact: tiles, four taps an instruction */
  STRATEGY_SMALL,         /* direct, sizes fixed at compile time */
  STRATEGY_SEPARABLE_MMA, /* inexact separable, tensor cores, half */
  STRATEGY_SEPARABLE,
  STRATEGY_FFT,
  STRATEGY_DIRECT,
} Strategy;

typedef struct StrategyOps StrategyOps;

/* The most a half-precision separable kernel's bound may be: outputs then
 * stay within 1 of the scalar reference. */
#define SEPARABLE_MMA_MAX_ERROR 0.9

struct KConvCuda
{
  int device;
  KConvGpuWait wait;             /* how its frames in flight are waited for */
  KConvCopyStreams copy_streams; /* whose streams its copies run on */
  const StrategyOps *strategy;
  int fft_missing; /* the FFT was chosen, cuFFT is not here */
  KConvCudaFft *fft;
  KConvCudaJob arith;        /* the kernel and arithmetic fields */
  KConvCudaWeights pw;       /* direct: weights; separable: h then v */
  KConvCudaIntPath int_path; /* the integer tiles its row launches */
  KConvCudaIntWeights iw;
  float *d_weights;        /* direct kernels too large for pw */
  void *d_tensor_table;    /* the exact tensor-core paths' weight table */
  int max_smem;            /* opt-in limit per block */
  cudaStream_t stream;     /* every convolution runs here, in order */
  KConvCudaCopies copies;  /* frames' uploads and downloads, in order */
  KConvCudaSlot *own_slot; /* for kconv_cuda_run */
  double sepmma_bound;     /* STRATEGY_SEPARABLE_MMA's error bound */
  int use_separable;       /* as kconv_cuda_new was told */
  KConvCuda *deep;         /* the same kernel for 16-bit samples, once
                            * some came (kconv_cuda_run_deep) */
  KConvCudaSides *sides;   /* for kconv_cuda_run_device_many, once used */
  char description[200];
};

extern "C" int
kconv_cuda_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError (); /* clear the sticky "no driver" error */
    return 0;
  }
  return n;
}

extern "C" KConvStatus
kconv_cuda_use_device (int device)
{
  int current = -1;
  if (cudaGetDevice (&current) == cudaSuccess && current == device)
    return KCONV_OK;
  return kconv_cuda_status (cudaSetDevice (device), "cudaSetDevice");
}

/* cuCtxGetCurrent, from the driver the runtime loaded */
typedef int (*CtxGetCurrent) (void **context);
static CtxGetCurrent ctx_get_current;
static pthread_once_t ctx_get_current_once = PTHREAD_ONCE_INIT;

static void
find_ctx_get_current (void)
{
  void *fn = NULL;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion ("cuCtxGetCurrent", &fn, 12000,
          cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess)
    ctx_get_current = (CtxGetCurrent) fn;
  else
    cudaGetLastError ();
}

extern "C" void *
kconv_cuda_current_context (void)
{
  void *context = NULL;
  pthread_once (&ctx_get_current_once, find_ctx_get_current);
  if (ctx_get_current)
    ctx_get_current (&context);
  return context;
}

static uint64_t bytes_to_device, bytes_to_host;
static uint64_t staged_to_device, staged_to_host;

extern "C" void
kconv_cuda_count_transfer (int to_device, size_t bytes)
{
  __atomic_add_fetch (to_device ? &bytes_to_device : &bytes_to_host,
      (uint64_t) bytes, __ATOMIC_RELAXED);
}

extern "C" void
kconv_cuda_transfer_bytes (uint64_t *to_device, uint64_t *to_host)
{
  *to_device = __atomic_load_n (&bytes_to_device, __ATOMIC_RELAXED);
  *to_host = __atomic_load_n (&bytes_to_host, __ATOMIC_RELAXED);
}

extern "C" void
kconv_cuda_count_staged (int to_device, size_t bytes)
{
  __atomic_add_fetch (to_device ? &staged_to_device : &staged_to_host,
      (uint64_t) bytes, __ATOMIC_RELAXED);
}

extern "C" void
kconv_cuda_staged_bytes (uint64_t *to_device, uint64_t *to_host)
{
  *to_device = __atomic_load_n (&staged_to_device, __ATOMIC_RELAXED);
  *to_host = __atomic_load_n (&staged_to_host, __ATOMIC_RELAXED);
}

extern "C" KConvStatus
kconv_cuda_copy_device (void *dst, ptrdiff_t dst_stride, const void *src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, void *stream)
{
  if (rows <= 0 || row_bytes == 0)
    return KCONV_OK;
  /* (the direction from the pointers: the regions' windows come from and
   * go back to host images too, kconv-filter-rects-batch.c) */
  KCONV_CUDA_CHECK (cudaMemcpy2DAsync (dst, dst_stride, src, src_stride,
      row_bytes, rows, cudaMemcpyDefault, (cudaStream_t) stream));
  return KCONV_OK;
}

/* One thread a pixel of the box; those off the outline do nothing. */
__global__ static void
draw_box_kernel (uint8_t *data, ptrdiff_t stride, int pixel_stride,
    int n_channels, uchar4 offsets, uchar4 value, int x0, int y0, int w, int h,
    int visible_w, int visible_h, int thickness)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= visible_w || j >= visible_h)
    return;
  if (i >= thickness && w - 1 - i >= thickness && j >= thickness &&
      h - 1 - j >= thickness)
    return;
  uint8_t *p = data + (ptrdiff_t) (y0 + j) * stride +
               (ptrdiff_t) (x0 + i) * pixel_stride;
  const uint8_t off[4] = { offsets.x, offsets.y, offsets.z, offsets.w };
  const uint8_t val[4] = { value.x, value.y, value.z, value.w };
  for (int c = 0; c < n_channels; c++)
    p[off[c]] = val[c];
}

extern "C" KConvStatus
kconv_cuda_draw_box (const KConvImage *im, int x, int y, int w, int h,
    int thickness, const uint8_t value[KCONV_MAX_CHANNELS], void *stream)
{
  /* the part inside the image; the outline stays the whole box's */
  const int x1 = x + w < im->width ? x + w : im->width;
  const int y1 = y + h < im->height ? y + h : im->height;
  if (x < 0 || y < 0 || x1 <= x || y1 <= y)
    return KCONV_OK;
  const uchar4 off = make_uchar4 (im->channel_offset[0], im->channel_offset[1],
      im->channel_offset[2], im->channel_offset[3]);
  const uchar4 val = make_uchar4 (value[0], value[1], value[2], value[3]);
  dim3 grid ((x1 - x + 127) / 128, y1 - y);
  draw_box_kernel<<<grid, 128, 0, (cudaStream_t) stream>>> (im->data,
      im->stride, im->pixel_stride, im->n_channels, off, val, x, y, w, h,
      x1 - x, y1 - y, thickness);
  KCONV_CUDA_CHECK (cudaGetLastError ());
  return KCONV_OK;
}

extern "C" KConvStatus
kconv_cuda_sync (void *stream)
{
  KCONV_CUDA_CHECK (cudaStreamSynchronize ((cudaStream_t) stream));
  return KCONV_OK;
}

/* ---- The paths, as a table of strategies ----
 *
 * Each says whether it can take a kernel (fits), whether the automatic
 * choice takes it (the table is in the order of preference), what it puts
 * on the device (setup), how it convolves a job's rows (launch) and how it
 * describes itself.  A forced path (kconv_force_strategy) is taken where it
 * fits; elsewhere the automatic choice stands. */

/* What choosing a path knows about a kernel. */
typedef struct
{
  const KConvPlan *plan;
  int use_separable; /* the core found two passes pay */
  int taps;
  int mma;                   /* every weight a signed byte, tensor cores */
  int wgmma;                 /* and the device has wgmma */
  int small;                 /* a size compiled in */
  KConvCudaIntPath int_path; /* an exact small kernel's integer lanes */
  int byte_weights;          /* an exact small kernel's weights, bytes */
  double sepmma_bound;       /* half-precision two passes' error bound */
} Choice;

struct StrategyOps
{
  Strategy id;
  const char *name; /* as kconv_force_strategy takes it */
  int (*fits) (const Choice *c);
  int (*chosen) (const Choice *c);
  KConvStatus (*setup) (KConvCuda *cu, const KConvPlan *plan);
  KConvStatus (*launch) (KConvCuda *cu, KConvCudaJob *job,
      const KConvImage *src, const KConvImage *dst, cudaStream_t stream);
  void (*describe) (const KConvCuda *cu, const KConvPlan *plan, char *out,
      size_t size);
};

/* Whether the device has the tensor cores (8.0 and up) the mma paths use. */
static int
has_tensor_cores (int device)
{
  int major = 0;
  if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return major >= 8;
}

/* Whether the exact tensor-core path can take the plan: every weight a
 * signed byte. */
static int
mma_fits (const KConvPlan *plan, int device)
{
  if (!plan->exact)
    return 0;
  for (int i = 0; i < plan->rows * plan->cols; i++)
    if (plan->weights[i] < -128.f || plan->weights[i] > 127.f)
      return 0;
  return has_tensor_cores (device);
}

/* The error bound of the half-precision separable path for the plan, or
 * infinity where it cannot take it; the half weights go to hv (h then v). */
static double
separable_mma_bound (const KConvPlan *plan, int device, float *hv)
{
  if (plan->exact || !plan->separable ||
      !kconv_cuda_separable_mma_fits (plan->cols, plan->rows) ||
      !has_tensor_cores (device))
    return INFINITY;
  return kconv_cuda_separable_mma_prepare (plan->h, plan->v, plan->cols,
      plan->rows, hv, hv + plan->cols);
}

/* Every channel of the image in one job. */
static void
job_all_channels (KConvCudaJob *job, const KConvImage *src,
    const KConvImage *dst)
{
  job->n_channels = src->n_channels;
  for (int c = 0; c < src->n_channels; c++)
    job->channel_offset[c] = src->channel_offset[c];
  job->copy_other_bytes = !dst->keep_other_bytes;
}

static KConvStatus
smem_refused (const KConvCuda *cu, size_t smem)
{
  return kconv_fail (KCONV_ERROR_DEVICE,
      "a %dx%d kernel needs %zu bytes of "
      "shared memory per block; the device allows %d",
      cu->arith.cols, cu->arith.rows, smem, cu->max_smem);
}

/* mma and wgmma: exact, on tensor cores (mma.sync, or the warpgroup's
 * asynchronous products on compute capability 9.0) */

static int
mma_can (const Choice *c)
{
  return c->mma;
}

static int
mma_chosen (const Choice *c)
{
  return c->mma && !c->small && c->taps >= MMA_MIN_TAPS;
}

static int
wgmma_can (const Choice *c)
{
  return c->mma && c->wgmma;
}

static int
wgmma_chosen (const Choice *c)
{
  return wgmma_can (c) && mma_chosen (c) && c->plan->cols >= WGMMA_MIN_SIDE &&
         c->plan->rows >= WGMMA_MIN_SIDE;
}

/* The weights as signed bytes, in the table the path takes, on the
 * device. */
static KConvStatus
tensor_setup (KConvCuda *cu, const KConvPlan *plan)
{
  const int n = plan->rows * plan->cols;
  const int wgmma = cu->strategy->id == STRATEGY_WGMMA;
  const size_t bytes =
      wgmma ? kconv_cuda_wgmma_weights_bytes (plan->rows, plan->cols)
            : kconv_cuda_mma_table_bytes (plan->rows, plan->cols, plan->ax);
  int8_t *w = (int8_t *) malloc (n);
  void *table = malloc (bytes);
  cudaError_t err = w && table ? cudaSuccess : cudaErrorMemoryAllocation;
  if (err == cudaSuccess) {
    for (int i = 0; i < n; i++)
      w[i] = (int8_t) plan->weights[i];
    if (wgmma)
      kconv_cuda_wgmma_weights (w, plan->rows, plan->cols, (int8_t *) table);
    else
      kconv_cuda_mma_table (w, plan->rows, plan->cols, plan->ax,
          (uint32_t *) table);
    err = cudaMalloc (&cu->d_tensor_table, bytes);
  }
  if (err == cudaSuccess)
    err = cudaMemcpy (cu->d_tensor_table, table, bytes, cudaMemcpyHostToDevice);
  /* a copy from pageable memory may return before its DMA ends, and the
   * filter's streams do not wait for the legacy one */
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (0);
  free (w);
  free (table);
  KCONV_CUDA_CHECK (err);
  return KCONV_OK;
}

/* the tensor-core paths take every channel in one launch */
static KConvStatus
tensor_launch (KConvCuda *cu, KConvCudaJob *job, const KConvImage *src,
    const KConvImage *dst, cudaStream_t stream)
{
  const Strategy id = cu->strategy->id;
  const size_t smem =
      id == STRATEGY_WGMMA ? kconv_cuda_wgmma_smem (job->cols, job->rows)
      : id == STRATEGY_MMA
          ? kconv_cuda_mma_smem (src->n_channels, job->cols, job->rows)
          : kconv_cuda_separable_mma_smem (src->n_channels, job);
  if (smem > (size_t) cu->max_smem)
    return smem_refused (cu, smem);
  job_all_channels (job, src, dst);
  if (id == STRATEGY_WGMMA)
    return kconv_cuda_launch_wgmma (job, (const int8_t *) cu->d_tensor_table,
        stream);
  if (id == STRATEGY_MMA)
    return kconv_cuda_launch_mma (job, (const uint32_t *) cu->d_tensor_table,
        stream);
  return kconv_cuda_launch_separable_mma (job, &cu->pw, stream);
}

static void
mma_describe (const KConvCuda *cu, const KConvPlan *plan, char *out,
    size_t size)
{
  snprintf (out, size,
      "tensor cores%s %dx%d (exact: byte pixels times byte "
      "weights, 32-bit sums; weight table on the device)",
      cu->strategy->id == STRATEGY_WGMMA ? " (warpgroup, wgmma)" : "",
      plan->cols, plan->rows);
}

/* small: direct, the size compiled in.  Exact kernels take integer lanes
 * on 4-byte pixels: streamed down columns (strips: DP4A, rows 16-byte
 * aligned), or in tiles with two channels an instruction in 16-bit lanes
 * (packed, where every sum fits one) or four taps an instruction (dp4a,
 * signed-byte weights).  Where a frame's layout does not suit its row's
 * kernel, the next in that order that suits runs, down to the float
 * lanes. */

static int
small_can (const Choice *c)
{
  return c->small;
}

static int
strips_can (const Choice *c)
{
  return c->small && c->int_path != KCONV_CUDA_INT_NONE && c->byte_weights;
}

static int
packed_can (const Choice *c)
{
  return c->small && c->int_path == KCONV_CUDA_INT_PACKED;
}

static int
dp4a_can (const Choice *c)
{
  return c->small && c->byte_weights;
}

static int
dp4a_chosen (const Choice *c)
{
  return c->small && c->int_path == KCONV_CUDA_INT_DP4A;
}

static KConvStatus direct_setup (KConvCuda *cu, const KConvPlan *plan);
static KConvStatus chunked_launch (KConvCuda *cu, KConvCudaJob *job,
    const KConvImage *src, const KConvImage *dst, cudaStream_t stream);

static KConvStatus
small_setup (KConvCuda *cu, const KConvPlan *plan)
{
  const Strategy id = cu->strategy->id;
  if (id == STRATEGY_SMALL)
    cu->int_path = KCONV_CUDA_INT_NONE;
  else if (id == STRATEGY_DP4A)
    cu->int_path = KCONV_CUDA_INT_DP4A;
  else if (id == STRATEGY_PACKED)
    cu->int_path = KCONV_CUDA_INT_PACKED;
  /* (strips: the tiles the weights take, set with the choice) */
  return direct_setup (cu, plan);
}

static KConvStatus
small_launch (KConvCuda *cu, KConvCudaJob *job, const KConvImage *src,
    const KConvImage *dst, cudaStream_t stream)
{
  if (!kconv_cuda_small_fits (job->cols, job->rows, src->n_channels))
    return chunked_launch (cu, job, src, dst, stream);
  job_all_channels (job, src, dst);
  if (job->depth > 8 && kconv_cuda_rgba64_fits (job))
    return kconv_cuda_launch_rgba64 (job, &cu->pw, stream);
  KConvCudaStrips strips;
  if (cu->int_path == KCONV_CUDA_INT_NONE || !kconv_cuda_int_layout_fits (*job))
    return kconv_cuda_launch_small (job, &cu->pw, stream);
  if (cu->strategy->id == STRATEGY_STRIPS &&
      kconv_cuda_strips_prepare (job, &cu->iw, &strips))
    return kconv_cuda_launch_strips (job, &strips, stream);
  if (cu->int_path == KCONV_CUDA_INT_DP4A)
    return kconv_cuda_launch_dp4a (job, &cu->iw, stream);
  return kconv_cuda_launch_packed (job, &cu->iw, stream);
}

static void
small_describe (const KConvCuda *cu, const KConvPlan *plan, char *out,
    size_t size)
{
  const char *tiles = cu->int_path == KCONV_CUDA_INT_PACKED
                          ? "in tiles, two channels an integer instruction "
                            "(16-bit lanes)"
                          : "in tiles, four taps an instruction (DP4A)";
  char lanes[160] = "";
  if (cu->strategy->id == STRATEGY_STRIPS)
    snprintf (lanes, sizeof lanes,
        "; on 4-byte pixels streamed down columns (DP4A) where rows are "
        "16-byte aligned, else %s",
        tiles);
  else if (cu->int_path != KCONV_CUDA_INT_NONE)
    snprintf (lanes, sizeof lanes, "; on 4-byte pixels %s", tiles);
  snprintf (out, size,
      "direct %dx%d, size fixed at compile time, weights in "
      "constant memory%s",
      plan->cols, plan->rows, lanes);
}

/* sepmma: inexact separable kernels in half precision on tensor cores,
 * where the error bound keeps every output within 1 */

static int
sepmma_can (const Choice *c)
{
  return c->use_separable && c->plan->separable &&
         c->sepmma_bound < SEPARABLE_MMA_MAX_ERROR;
}

static KConvStatus
sepmma_setup (KConvCuda *cu, const KConvPlan *plan)
{
  return KCONV_OK; /* pw holds the half weights already */
}

static void
sepmma_describe (const KConvCuda *cu, const KConvPlan *plan, char *out,
    size_t size)
{
  snprintf (out, size,
      "separable on tensor cores %dx%d (half precision, "
      "float sums; outputs within %.2f of the float result)",
      plan->cols, plan->rows, cu->sepmma_bound);
}

/* separable: two fused passes; direct: one tiled pass */

static int
separable_can (const Choice *c)
{
  return c->use_separable && c->plan->separable;
}

static KConvStatus
separable_setup (KConvCuda *cu, const KConvPlan *plan)
{
  memcpy (cu->pw.w, plan->h, plan->cols * sizeof (float));
  memcpy (cu->pw.w + plan->cols, plan->v, plan->rows * sizeof (float));
  return KCONV_OK;
}

static int
always (const Choice *c)
{
  return 1;
}

static KConvStatus
direct_setup (KConvCuda *cu, const KConvPlan *plan)
{
  const int n = plan->rows * plan->cols;
  const float scale = plan->exact ? 1.f : plan->scale;
  if (n <= KCONV_CUDA_PARAM_WEIGHTS) {
    for (int i = 0; i < n; i++)
      cu->pw.w[i] = plan->weights[i] * scale;
    return KCONV_OK;
  }
  float *w = (float *) malloc (n * sizeof (float));
  if (!w)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; i < n; i++)
    w[i] = plan->weights[i] * scale;
  cudaError_t err = cudaMalloc (&cu->d_weights, n * sizeof (float));
  if (err == cudaSuccess)
    err = cudaMemcpy (cu->d_weights, w, n * sizeof (float),
        cudaMemcpyHostToDevice);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (0); /* (as above) */
  free (w);
  KCONV_CUDA_CHECK (err);
  return KCONV_OK;
}

static size_t
smem_for (const KConvCuda *cu, int nch)
{
  return cu->strategy->id == STRATEGY_SEPARABLE
             ? kconv_cuda_separable_smem (nch, cu->arith.cols, cu->arith.rows)
             : kconv_cuda_direct_smem (nch, cu->arith.cols, cu->arith.rows);
}

/* Channels per launch: all when the tile is comfortable, else as many as
 * fit the per-block limit. */
static KConvStatus
chunked_launch (KConvCuda *cu, KConvCudaJob *job, const KConvImage *src,
    const KConvImage *dst, cudaStream_t stream)
{
  int total = src->n_channels, per = total;
  while (per > 1 && smem_for (cu, per) > SMEM_COMFORT)
    per--;
  if (smem_for (cu, per) > (size_t) cu->max_smem)
    return smem_refused (cu, smem_for (cu, per));
  for (int c0 = 0; c0 < total; c0 += per) {
    job->n_channels = c0 + per <= total ? per : total - c0;
    for (int c = 0; c < job->n_channels; c++)
      job->channel_offset[c] = src->channel_offset[c0 + c];
    job->copy_other_bytes = c0 == 0 && !dst->keep_other_bytes;
    KCONV_TRY (
        cu->strategy->id == STRATEGY_SEPARABLE
            ? kconv_cuda_launch_separable (job, &cu->pw, stream)
            : kconv_cuda_launch_direct (job, &cu->pw, cu->d_weights, stream));
  }
  return KCONV_OK;
}

static void
tiled_describe (const KConvCuda *cu, const KConvPlan *plan, char *out,
    size_t size)
{
  const int separable = cu->strategy->id == STRATEGY_SEPARABLE;
  snprintf (out, size, "%s %dx%d, weights in %s%s",
      separable ? "separable (fused two-pass)" : "direct tiled", plan->cols,
      plan->rows,
      separable || plan->rows * plan->cols <= KCONV_CUDA_PARAM_WEIGHTS
          ? "constant memory"
          : "global memory",
      cu->fft_missing ? " (cuFFT unavailable)" : "");
}

/* fft: large kernels through cuFFT in double precision */

static int
fft_chosen (const Choice *c)
{
  return c->taps >= FFT_MIN_TAPS;
}

static const StrategyOps *strategy_by_id (Strategy id);

static KConvStatus
fft_setup (KConvCuda *cu, const KConvPlan *plan)
{
  const int n = plan->rows * plan->cols;
  const float scale = plan->exact ? 1.f : plan->scale;
  float *w = (float *) malloc (n * sizeof (float));
  if (!w)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; i < n; i++)
    w[i] = plan->weights[i] * scale;
  cu->fft = kconv_cuda_fft_new (w, plan->cols, plan->rows);
  free (w);
  if (cu->fft)
    return KCONV_OK;
  /* no cuFFT here: direct it is */
  cu->fft_missing = 1;
  cu->strategy = strategy_by_id (STRATEGY_DIRECT);
  return direct_setup (cu, plan);
}

static KConvStatus
fft_launch (KConvCuda *cu, KConvCudaJob *job, const KConvImage *src,
    const KConvImage *dst, cudaStream_t stream)
{
  if (job->row_begin != 0 || job->row_end != src->height)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "the FFT path "
        "convolves whole frames only");
  job_all_channels (job, src, dst);
  return kconv_cuda_fft_run (cu->fft, job, stream);
}

static void
fft_describe (const KConvCuda *cu, const KConvPlan *plan, char *out,
    size_t size)
{
  snprintf (out, size,
      "FFT (cuFFT, double precision, kernel spectrum "
      "cached) %dx%d",
      plan->cols, plan->rows);
}

/* in the order of preference; indexed by Strategy */
static const StrategyOps strategies[] = {
  { STRATEGY_WGMMA, "wgmma", wgmma_can, wgmma_chosen, tensor_setup,
      tensor_launch, mma_describe },
  { STRATEGY_MMA, "mma", mma_can, mma_chosen, tensor_setup, tensor_launch,
      mma_describe },
  { STRATEGY_STRIPS, "strips", strips_can, strips_can, small_setup,
      small_launch, small_describe },
  { STRATEGY_PACKED, "packed", packed_can, packed_can, small_setup,
      small_launch, small_describe },
  { STRATEGY_DP4A, "dp4a", dp4a_can, dp4a_chosen, small_setup, small_launch,
      small_describe },
  { STRATEGY_SMALL, "small", small_can, small_can, small_setup, small_launch,
      small_describe },
  { STRATEGY_SEPARABLE_MMA, "sepmma", sepmma_can, sepmma_can, sepmma_setup,
      tensor_launch, sepmma_describe },
  { STRATEGY_SEPARABLE, "separable", separable_can, separable_can,
      separable_setup, chunked_launch, tiled_describe },
  { STRATEGY_FFT, "fft", always, fft_chosen, fft_setup, fft_launch,
      fft_describe },
  { STRATEGY_DIRECT, "direct", always, always, direct_setup, chunked_launch,
      tiled_describe },
};

#define N_STRATEGIES (sizeof strategies / sizeof strategies[0])

static const StrategyOps *
strategy_by_id (Strategy id)
{
  return &strategies[id];
}

extern "C" const char *
kconv_cuda_strategy_name (int i)
{
  return i >= 0 && i < (int) N_STRATEGIES ? strategies[i].name : NULL;
}

/* The forced path where it fits, else the first the table prefers. */
static const StrategyOps *
choose_strategy (const Choice *c, const char *forced)
{
  for (size_t i = 0; forced && i < N_STRATEGIES; i++)
    if (!strcmp (forced, strategies[i].name) && strategies[i].fits (c))
      return &strategies[i];
  for (size_t i = 0; i < N_STRATEGIES; i++)
    if (strategies[i].fits (c) && strategies[i].chosen (c))
      return &strategies[i];
  return &strategies[STRATEGY_DIRECT];
}

/* What every path shares: the device, its streams and the arithmetic. */
static KConvStatus
cuda_setup (KConvCuda *cu, const KConvPlan *plan)
{
  KCONV_TRY (kconv_cuda_use_device (cu->device));
  KCONV_CUDA_CHECK (cudaDeviceGetAttribute (&cu->max_smem,
      cudaDevAttrMaxSharedMemoryPerBlockOptin, cu->device));
  KCONV_CUDA_CHECK (
      cudaStreamCreateWithFlags (&cu->stream, cudaStreamNonBlocking));
  KConvStatus st = kconv_cuda_copies_take (&cu->copies, cu->copy_streams);
  if (st != KCONV_OK)
    return st;

  KConvCudaJob *a = &cu->arith;
  a->cols = plan->cols;
  a->rows = plan->rows;
  a->ax = plan->ax;
  a->ay = plan->ay;
  a->border = plan->border;
  a->exact = plan->exact;
  a->negate = plan->negate;
  a->absolute = plan->absolute;
  a->divisor = plan->divisor;
  a->ioffset = plan->ioffset;
  if (plan->exact)
    a->div = kconv_int_division (plan->divisor, plan->ioffset);
  a->bias = plan->bias;
  a->depth = plan->depth;
  a->maxval = plan->maxval;
  return cu->strategy->setup (cu, plan);
}

extern "C" KConvStatus
kconv_cuda_new (const KConvPlan *plan, int use_separable, int device_id,
    KConvGpuWait wait, KConvCopyStreams copies, KConvCuda **out)
{
  *out = NULL;
  KConvCuda *cu = (KConvCuda *) calloc (1, sizeof *cu);
  if (!cu)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  cu->device = device_id < 0 ? 0 : device_id;
  cu->wait = wait;
  cu->copy_streams = copies;

  Choice c = { plan, use_separable, plan->rows * plan->cols,
    mma_fits (plan, cu->device), kconv_cuda_wgmma_available (cu->device),
    kconv_cuda_small_fits (plan->cols, plan->rows, 1), KCONV_CUDA_INT_NONE, 0,
    INFINITY };
  if (c.small && plan->exact) {
    c.int_path = cu->int_path =
        kconv_cuda_int_setup (plan->weights, plan->cols, &cu->iw);
    c.byte_weights = kconv_cuda_int_bytes (plan->weights, plan->cols);
  }
  if (use_separable && plan->separable)
    cu->sepmma_bound = c.sepmma_bound =
        separable_mma_bound (plan, cu->device, cu->pw.w);
  const KConvTuning tuning = kconv_tuning ();
  cu->use_separable = use_separable;
  if (plan->depth > 8)
    /* 16-bit samples: the float tiles alone read and write words (the
     * small sizes compiled in, two passes, or the general tile) */
    cu->strategy = strategy_by_id (small_can (&c)       ? STRATEGY_SMALL
                                   : separable_can (&c) ? STRATEGY_SEPARABLE
                                                        : STRATEGY_DIRECT);
  else
    cu->strategy = choose_strategy (&c,
        tuning.cuda_strategy[0] ? tuning.cuda_strategy : NULL);

  KConvStatus st = cuda_setup (cu, plan);
  if (st != KCONV_OK) {
    kconv_cuda_free (cu);
    return st;
  }
  cu->strategy->describe (cu, plan, cu->description, sizeof cu->description);
  *out = cu;
  return KCONV_OK;
}

extern "C" KConvStatus
kconv_cuda_run_rows (KConvCuda *cu, const KConvImage *src,
    const KConvImage *dst, int row_begin, int row_end, void *stream_ptr)
{
  KCONV_TRY (kconv_cuda_use_device (cu->device));

  KConvCudaJob job = cu->arith;
  job.src = src->data;
  job.dst = dst->data;
  job.width = src->width;
  job.height = src->height;
  job.row_begin = row_begin;
  job.row_end = row_end;
  job.src_stride = (int) src->stride;
  job.dst_stride = (int) dst->stride;
  job.pixel_stride = src->pixel_stride;
  job.shift = src->shift;
  job.big_endian = src->big_endian;
  job.aligned8 = ((uintptr_t) dst->data % 8 == 0) && dst->stride % 8 == 0 &&
                 ((uintptr_t) src->data % 8 == 0) && src->stride % 8 == 0;
  job.aligned4 = ((uintptr_t) dst->data % 4 == 0) && dst->stride % 4 == 0 &&
                 ((uintptr_t) src->data % 4 == 0) && src->stride % 4 == 0;
  return cu->strategy->launch (cu, &job, src, dst, (cudaStream_t) stream_ptr);
}

extern "C" KConvStatus
kconv_cuda_run_device (KConvCuda *cu, const KConvImage *src,
    const KConvImage *dst, void *stream)
{
  return kconv_cuda_run_rows (cu, src, dst, 0, src->height, stream);
}

extern "C" KConvStatus
kconv_cuda_run_device_many (KConvCuda *cu, const KConvImage *src,
    const KConvImage *dst, int n, void *stream)
{
  if (n <= 1 || kconv_tuning ().cuda_windows_in_turn) {
    KConvStatus st = KCONV_OK;
    for (int i = 0; i < n && st == KCONV_OK; i++)
      st = kconv_cuda_run_device (cu, &src[i], &dst[i], stream);
    return st;
  }
  KCONV_TRY (kconv_cuda_use_device (cu->device));
  void *side[KCONV_CUDA_SIDES];
  const int k = n < KCONV_CUDA_SIDES ? n : KCONV_CUDA_SIDES;
  KCONV_TRY (kconv_cuda_sides_fork (&cu->sides, stream, k, side));
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < n && st == KCONV_OK; i++)
    st = kconv_cuda_run_rows (cu, &src[i], &dst[i], 0, src[i].height,
        side[i % k]);
  /* joined after a failure too: nothing queued may be left behind stream */
  const KConvStatus joined = kconv_cuda_sides_join (cu->sides, stream, k);
  return st != KCONV_OK ? st : joined;
}

extern "C" KConvStatus
kconv_cuda_run (KConvCuda *cu, const KConvImage *src, const KConvImage *dst,
    int n_threads)
{
  KConvStatus st = kconv_cuda_submit (cu, &cu->own_slot, src, dst, n_threads);
  return st != KCONV_OK ? st : kconv_cuda_slot_wait (cu->own_slot);
}

/* cu's twin for 16-bit samples of plan's depth, made when first wanted */
static KConvStatus
deep_twin (KConvCuda *cu, const KConvPlan *plan)
{
  if (cu->deep && cu->deep->arith.depth != plan->depth) {
    kconv_cuda_free (cu->deep);
    cu->deep = NULL;
  }
  if (!cu->deep)
    KCONV_TRY (kconv_cuda_new (plan, cu->use_separable, cu->device, cu->wait,
        cu->copy_streams, &cu->deep));
  return KCONV_OK;
}

extern "C" KConvStatus
kconv_cuda_run_deep (KConvCuda *cu, const KConvPlan *plan,
    const KConvImage *src, const KConvImage *dst, int n_threads)
{
  KCONV_TRY (deep_twin (cu, plan));
  return kconv_cuda_run (cu->deep, src, dst, n_threads);
}

extern "C" KConvStatus
kconv_cuda_run_deep_device (KConvCuda *cu, const KConvPlan *plan,
    const KConvImage *src, const KConvImage *dst, void *stream)
{
  KCONV_TRY (deep_twin (cu, plan));
  return kconv_cuda_run_device (cu->deep, src, dst, stream);
}

extern "C" int
kconv_cuda_row_reach (const KConvCuda *cu, int *above, int *below)
{
  *above = cu->arith.ay;
  *below = cu->arith.rows - 1 - cu->arith.ay;
  /* wrapping reads the far edge; the FFT takes the frame whole */
  return cu->strategy->id != STRATEGY_FFT &&
         cu->arith.border != KCONV_BORDER_WRAP;
}

extern "C" int
kconv_cuda_device_of (const KConvCuda *cu)
{
  return cu->device;
}

extern "C" KConvGpuWait
kconv_cuda_wait_of (const KConvCuda *cu)
{
  return cu->wait;
}

extern "C" void *
kconv_cuda_compute_stream (const KConvCuda *cu)
{
  return (void *) cu->stream;
}

extern "C" void
kconv_cuda_copy_streams (const KConvCuda *cu, void **up, void **down)
{
  *up = cu->copies.up;
  *down = cu->copies.down;
}

extern "C" const char *
kconv_cuda_strategy (const KConvCuda *cu)
{
  return cu->description;
}

extern "C" void
kconv_cuda_free (KConvCuda *cu)
{
  if (!cu)
    return;
  kconv_cuda_free (cu->deep);
  kconv_cuda_slot_free (cu->own_slot);
  (void) kconv_cuda_use_device (cu->device);
  kconv_cuda_sides_free (cu->sides);
  kconv_cuda_fft_free (cu->fft);
  cudaFree (cu->d_weights);
  cudaFree (cu->d_tensor_table);
  if (cu->stream)
    cudaStreamDestroy (cu->stream);
  kconv_cuda_copies_release (&cu->copies);
  free (cu);
}
