/* kconv: NVIDIA NPP as the peer in kconv-cuda-bench
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <cuda_runtime.h>
#include <npp.h>
#include "bench-peer-npp.h"

int32_t *
peer_npp_upload_kernel (const int32_t * kernel, int size)
{
  int32_t *d = NULL;
  size_t bytes = sizeof (int32_t) * size * size;
  if (cudaMalloc ((void **) &d, bytes) != cudaSuccess)
    return NULL;
  if (cudaMemcpy (d, kernel, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaFree (d);
    return NULL;
  }
  return d;
}

static NppStreamContext *
npp_context (void *stream)
{
  static NppStreamContext ctx;
  static int have_ctx;
  if (!have_ctx) {
    /* CUDA 13's NPP has no nppGetStreamContext: fill it from the device */
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice (&dev) != cudaSuccess
        || cudaGetDeviceProperties (&prop, dev) != cudaSuccess)
      return NULL;
    ctx.nCudaDeviceId = dev;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
    have_ctx = 1;
  }
  ctx.hStream = (cudaStream_t) stream;
  return &ctx;
}

static Npp32f *match_map;
static Npp8u *match_scratch;
static int *match_xy;
static Npp32f *match_min;

int
peer_npp_match (const uint8_t * d_frame, int width, int height,
    const uint8_t * d_tmpl, int tw, int th, int *x, int *y, void *stream)
{
  NppStreamContext *ctx = npp_context (stream);
  if (!ctx)
    return -1;
  NppiSize fs = { width, height }, ts = { tw, th };
  NppiSize ms = { width - tw + 1, height - th + 1 };
  if (!match_map) {
    size_t scratch = 0;
    if (cudaMalloc ((void **) &match_map, sizeof (Npp32f) * ms.width *
            ms.height) != cudaSuccess
        || nppiMinIndxGetBufferHostSize_32f_C1R_Ctx (ms, &scratch, *ctx)
        != NPP_SUCCESS
        || cudaMalloc ((void **) &match_scratch, scratch) != cudaSuccess
        || cudaMalloc ((void **) &match_xy, 2 * sizeof (int)) != cudaSuccess
        || cudaMalloc ((void **) &match_min, sizeof (Npp32f)) != cudaSuccess)
      return -1;
  }
  NppStatus st = nppiSqrDistanceValid_Norm_8u32f_C1R_Ctx (d_frame, width, fs,
      d_tmpl, tw, ts, match_map, ms.width * (int) sizeof (Npp32f), *ctx);
  if (st == NPP_SUCCESS)
    st = nppiMinIndx_32f_C1R_Ctx (match_map, ms.width * (int) sizeof (Npp32f),
        ms, match_scratch, match_min, match_xy, match_xy + 1, *ctx);
  int xy[2];
  if (st != NPP_SUCCESS || cudaMemcpyAsync (xy, match_xy, sizeof xy,
          cudaMemcpyDeviceToHost, (cudaStream_t) stream) != cudaSuccess
      || cudaStreamSynchronize ((cudaStream_t) stream) != cudaSuccess)
    return -1;
  *x = xy[0];
  *y = xy[1];
  return 0;
}

void
peer_npp_match_free (void)
{
  cudaFree (match_map);
  cudaFree (match_scratch);
  cudaFree (match_xy);
  cudaFree (match_min);
  match_map = NULL;
  match_scratch = NULL;
  match_xy = NULL;
  match_min = NULL;
}

int
peer_npp_filter (const uint8_t * src, int src_stride, uint8_t * dst,
    int dst_stride, int width, int height, int channels, const int32_t * kernel,
    int size, int divisor, void *stream)
{
  NppStreamContext *pctx = npp_context (stream);
  if (!pctx)
    return -1;
  NppStreamContext ctx = *pctx;
  NppiSize roi = { width, height };
  NppiPoint origin = { 0, 0 };
  NppiSize ksize = { size, size };
  NppiPoint anchor = { size / 2, size / 2 };
  NppStatus st = channels == 4 ?
      nppiFilterBorder_8u_C4R_Ctx (src, src_stride, roi, origin, dst,
      dst_stride, roi, kernel, ksize, anchor, divisor, NPP_BORDER_REPLICATE,
      ctx) : nppiFilterBorder_8u_C3R_Ctx (src, src_stride, roi, origin, dst,
      dst_stride, roi, kernel, ksize, anchor, divisor, NPP_BORDER_REPLICATE,
      ctx);
  return st == NPP_SUCCESS ? 0 : (int) st;
}

/* ---- the correlation methods: NPP's normalized searches, kept buffers ---- */

static Npp32f *corr_map;
static size_t corr_cells;
static Npp8u *corr_buffer, *corr_index_scratch;
static size_t corr_buffer_size, corr_index_size;
static int *corr_xy;
static Npp32f *corr_value;

/* device memory of at least need bytes in *p */
static int
grow_device (void **p, size_t *size, size_t need)
{
  if (need <= *size)
    return 0;
  cudaFree (*p);
  *p = NULL;
  *size = 0;
  if (cudaMalloc (p, need) != cudaSuccess)
    return -1;
  *size = need;
  return 0;
}

int
peer_npp_match_method (int method, const uint8_t * d_frame, int width,
    int height, const uint8_t * d_tmpl, int tw, int th, int *x, int *y,
    double *value, void *stream)
{
  NppStreamContext *ctx = npp_context (stream);
  if (!ctx)
    return -1;
  NppiSize fs = { width, height }, ts = { tw, th };
  NppiSize ms = { width - tw + 1, height - th + 1 };
  const int map_step = ms.width * (int) sizeof (Npp32f);
  size_t cells_bytes = corr_cells * sizeof (Npp32f);
  if (grow_device ((void **) &corr_map, &cells_bytes,
          (size_t) ms.width * ms.height * sizeof (Npp32f)) != 0)
    return -1;
  corr_cells = cells_bytes / sizeof (Npp32f);
  size_t level = 0, index = 0;
  if (nppiValidNormLevelGetBufferHostSize_8u32f_C1R_Ctx (fs, &level, *ctx)
      != NPP_SUCCESS
      || (method == 3 ? nppiMaxIndxGetBufferHostSize_32f_C1R_Ctx (ms, &index,
              *ctx) : nppiMinIndxGetBufferHostSize_32f_C1R_Ctx (ms, &index,
              *ctx)) != NPP_SUCCESS
      || grow_device ((void **) &corr_buffer, &corr_buffer_size, level) != 0
      || grow_device ((void **) &corr_index_scratch, &corr_index_size,
          index) != 0)
    return -1;
  if (!corr_xy && (cudaMalloc ((void **) &corr_xy, 2 * sizeof (int))
          != cudaSuccess || cudaMalloc ((void **) &corr_value,
              sizeof (Npp32f)) != cudaSuccess))
    return -1;
  NppStatus st;
  /* 1 ssd: the normalized squared distance, least; 2 ncc, 3 zncc: the
   * normalized correlation, largest (ncc's best is taken as the least of
   * 1 - ncc would be: the largest, MaxIndx) */
  if (method == 1)
    st = nppiSqrDistanceValid_Norm_8u32f_C1R_Ctx (d_frame, width, fs, d_tmpl,
        tw, ts, corr_map, map_step, *ctx);
  else if (method == 2)
    st = nppiCrossCorrValid_Norm_8u32f_C1R_Ctx (d_frame, width, fs, d_tmpl,
        tw, ts, corr_map, map_step, *ctx);
  else
    st = nppiCrossCorrValid_NormLevel_8u32f_C1R_Ctx (d_frame, width, fs,
        d_tmpl, tw, ts, corr_map, map_step, corr_buffer, *ctx);
  if (st == NPP_SUCCESS)
    st = method == 1 ? nppiMinIndx_32f_C1R_Ctx (corr_map, map_step, ms,
        corr_index_scratch, corr_value, corr_xy, corr_xy + 1, *ctx) :
        nppiMaxIndx_32f_C1R_Ctx (corr_map, map_step, ms, corr_index_scratch,
        corr_value, corr_xy, corr_xy + 1, *ctx);
  int xy[2];
  Npp32f v;
  if (st != NPP_SUCCESS || cudaMemcpyAsync (xy, corr_xy, sizeof xy,
          cudaMemcpyDeviceToHost, (cudaStream_t) stream) != cudaSuccess
      || cudaMemcpyAsync (&v, corr_value, sizeof v, cudaMemcpyDeviceToHost,
          (cudaStream_t) stream) != cudaSuccess
      || cudaStreamSynchronize ((cudaStream_t) stream) != cudaSuccess)
    return -1;
  *x = xy[0];
  *y = xy[1];
  *value = v;
  return 0;
}

void
peer_npp_match_method_free (void)
{
  cudaFree (corr_map);
  cudaFree (corr_buffer);
  cudaFree (corr_index_scratch);
  cudaFree (corr_xy);
  cudaFree (corr_value);
  corr_map = NULL;
  corr_buffer = corr_index_scratch = NULL;
  corr_xy = NULL;
  corr_value = NULL;
  corr_cells = corr_buffer_size = corr_index_size = 0;
}
