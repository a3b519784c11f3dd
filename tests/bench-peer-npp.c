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

int
peer_npp_filter (const uint8_t * src, int src_stride, uint8_t * dst,
    int dst_stride, int width, int height, int channels, const int32_t *kernel,
    int size, int divisor, void *stream)
{
  static NppStreamContext ctx;
  static int have_ctx;
  if (!have_ctx) {
    /* CUDA 13's NPP has no nppGetStreamContext: fill it from the device */
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice (&dev) != cudaSuccess
        || cudaGetDeviceProperties (&prop, dev) != cudaSuccess)
      return -1;
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
  NppiSize roi = { width, height };
  NppiPoint origin = { 0, 0 };
  NppiSize ksize = { size, size };
  NppiPoint anchor = { size / 2, size / 2 };
  NppStatus st = channels == 4 ?
      nppiFilterBorder_8u_C4R_Ctx (src, src_stride, roi, origin, dst,
      dst_stride, roi, kernel, ksize, anchor, divisor, NPP_BORDER_REPLICATE,
      ctx) :
      nppiFilterBorder_8u_C3R_Ctx (src, src_stride, roi, origin, dst,
      dst_stride, roi, kernel, ksize, anchor, divisor, NPP_BORDER_REPLICATE,
      ctx);
  return st == NPP_SUCCESS ? 0 : (int) st;
}
